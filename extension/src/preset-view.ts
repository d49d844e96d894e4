/**
 * The read-only view of a built-in preset (`netpolicy-preset:/NAME.json`), where go to definition
 * on a built-in preset lands: its text comes from the language server (`netpolicy/presetDocument`).
 */
import * as vscode from 'vscode';
import type { BaseLanguageClient } from 'vscode-languageclient';

/** Must match the server's PRESET_SCHEME and PresetDocumentRequestMethod (packages/language-server/src/protocol.ts). */
const SCHEME = 'netpolicy-preset';
const METHOD = 'netpolicy/presetDocument';

export function registerPresetView(context: vscode.ExtensionContext, client: () => BaseLanguageClient | undefined): void {
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
    async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
      const c = client();
      if (!c) return '// The netpolicy language server is not running.\n';
      const answer = await c.sendRequest<{ text: string } | null>(METHOD, { uri: uri.toString() }).catch(() => null);
      return answer?.text ?? '// No built-in preset of this name.\n';
    },
  }));
}
