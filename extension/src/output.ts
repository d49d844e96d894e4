/** The one output channel of the extension: the language client's log and the commands' notes. */
import * as vscode from 'vscode';

let output: vscode.OutputChannel | undefined;

export function outputChannel(): vscode.OutputChannel {
  return (output ??= vscode.window.createOutputChannel('netpolicy'));
}

export function log(message: string): void {
  outputChannel().appendLine(`[${new Date().toISOString().slice(11, 23)}] ${message}`);
}
