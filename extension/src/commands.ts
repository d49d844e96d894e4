/**
 * The commands of the palette's "netpolicy" category. Files are read and written through
 * `vscode.workspace.fs` only, so every command works in the browser as on the desktop.
 */
import * as vscode from 'vscode';
import { type JobRef } from './fetch-logic';
import { type Platform } from './files';
import { explainTraceCommand, suggestPolicyCommand, useTraceCommand } from './trace-commands';
import { setTokenCommand, signOutCommand } from './token-commands';
import { fetchTraceCommand } from './fetch-trace-command';

export type { Platform } from './files';
export { explainTraceCommand } from './trace-commands';

export function registerCommands(context: vscode.ExtensionContext, platform: Platform = {}): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('netpolicy.explainTrace', (trace?: unknown, policy?: unknown) => explainTraceCommand(context, platform, trace, policy)),
    vscode.commands.registerCommand('netpolicy.suggestPolicy', (trace?: unknown, options?: { includeDenied?: unknown }) => suggestPolicyCommand(context, platform, trace, options?.includeDenied === true)),
    vscode.commands.registerCommand('netpolicy.useTrace', (trace?: unknown) => useTraceCommand(context, trace)),
    vscode.commands.registerCommand('netpolicy.setToken', () => setTokenCommand(context)),
    vscode.commands.registerCommand('netpolicy.signOut', () => signOutCommand(context)),
    vscode.commands.registerCommand('netpolicy.fetchTrace', (job?: JobRef) => fetchTraceCommand(context, platform, job)),
  );
}
