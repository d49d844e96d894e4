/** The one output channel of the extension: the language client's log and the commands' notes. */
import * as vscode from 'vscode';
import { escapeControl } from '@netpolicy/core';

let output: vscode.OutputChannel | undefined;

export function outputChannel(): vscode.OutputChannel {
  return (output ??= vscode.window.createOutputChannel('netpolicy'));
}

/** One line of the channel: outside text in it (trace hosts, file names) cannot forge or reorder lines. */
export function log(message: string): void {
  outputChannel().appendLine(`[${new Date().toISOString().slice(11, 23)}] ${escapeControl(message)}`);
}
