/**
 * The count lenses' command: a lens on a rule ("12 traced accesses decided here") runs
 * `netpolicy.showReferences` with the document's URI and the lens's position; the command asks the
 * server for the references there and shows them in the references peek. The client says it has
 * the command (`experimental.commands.commands`, as rust-analyzer's clients do), so that the
 * server makes lenses clickable for this client only (another client keeps the titles alone).
 * No Node imports: it runs in VS Code for the Web too.
 */
import * as vscode from 'vscode';
import type { BaseLanguageClient, ClientCapabilities, FeatureState, Location, StaticFeature } from 'vscode-languageclient';

/** Must match the server's SHOW_REFERENCES_COMMAND (packages/language-server/src/protocol.ts). */
export const SHOW_REFERENCES_COMMAND = 'netpolicy.showReferences';

/** Says in the client's capabilities that it runs the command (register on the client before it starts). */
export function showReferencesFeature(): StaticFeature {
  return {
    fillClientCapabilities(capabilities: ClientCapabilities): void {
      const experimental = (capabilities.experimental ??= {}) as { commands?: { commands?: string[] } };
      experimental.commands = { commands: [...(experimental.commands?.commands ?? []), SHOW_REFERENCES_COMMAND] };
    },
    initialize(): void {},
    getState: (): FeatureState => ({ kind: 'static' }),
    clear(): void {},
  };
}

const isPosition = (p: unknown): p is { line: number; character: number } =>
  typeof p === 'object' && p !== null && Number.isInteger((p as { line?: unknown }).line) && Number.isInteger((p as { character?: unknown }).character);

export function registerShowReferences(context: vscode.ExtensionContext, client: () => BaseLanguageClient | undefined): void {
  context.subscriptions.push(vscode.commands.registerCommand(SHOW_REFERENCES_COMMAND, async (uri: unknown, position: unknown) => {
    const c = client();
    if (!c || typeof uri !== 'string' || !isPosition(position)) return;
    const found = await c.sendRequest<Location[] | null>('textDocument/references', { textDocument: { uri }, position, context: { includeDeclaration: false } });
    const p2c = c.protocol2CodeConverter;
    const locations = (await p2c.asReferences(found)) ?? [];
    await vscode.commands.executeCommand('editor.action.showReferences', p2c.asUri(uri), p2c.asPosition(position), locations);
  }));
}
