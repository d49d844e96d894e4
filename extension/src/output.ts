/** The one output channel of the extension: the language client's log and the commands' notes. */
import * as vscode from 'vscode';
import { escapeMessage } from '@netpolicy/core';

/** The longest line of the channel: a 1 MB URL is cut, not written whole. */
export const LOG_LINE_MAX = 2000;

let output: vscode.OutputChannel | undefined;

export function outputChannel(): vscode.OutputChannel {
  return (output ??= vscode.window.createOutputChannel('netpolicy'));
}

/** One line of the channel: outside text in it (trace hosts, file names, paths) cannot forge or reorder lines, and is cut to LOG_LINE_MAX. */
export function log(message: string): void {
  outputChannel().appendLine(`[${new Date().toISOString().slice(11, 23)}] ${escapeMessage(message, LOG_LINE_MAX)}`);
}
