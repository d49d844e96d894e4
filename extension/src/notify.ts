/**
 * The one way the extension shows text: every notification, modal, progress title, status bar
 * message, quick pick label and input box title goes through here, and through core's `escapeMessage` (control and
 * bidi characters escaped, `[text](command:...)` broken so that VS Code renders no live link, cut
 * to a length). Outside text (a setting, a file's name, a trace's URL, a service's problem title)
 * reaches most messages; escaping the whole message at the sink leaves none out. The buttons are
 * the extension's own words. `extension/test/unit/sinks.test.ts` keeps every other file off
 * `vscode.window.show*Message`.
 */
import * as vscode from 'vscode';
import { escapeIcons, escapeMessage } from '@netpolicy/core';

/** The longest notification: a 1 MB URL is not a 1 MB toast. */
export const MESSAGE_MAX = 1000;
/** The longest label of a quick pick item or title. */
export const LABEL_MAX = 200;

/** A message's text as shown: escaped and cut. */
export function messageText(text: string): string {
  return escapeMessage(text, MESSAGE_MAX);
}

/** A label (quick pick item, title, status text): escaped, cut, and `$(name)` shown as text, not an icon. */
export function labelText(text: string): string {
  return escapeIcons(escapeMessage(text, LABEL_MAX));
}

interface Show {
  <T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
  <T extends string>(message: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
}

function shown(show: (message: string, ...rest: unknown[]) => Thenable<unknown>): Show {
  return (<T extends string>(message: string, ...rest: Array<T | vscode.MessageOptions>) => {
    const options = typeof rest[0] === 'object' ? (rest[0] as vscode.MessageOptions) : undefined;
    const items = rest.filter((r): r is T => typeof r === 'string');
    // A modal's detail is outside text as much as its message.
    const safe = options ? { ...options, ...(options.detail !== undefined ? { detail: messageText(options.detail) } : {}) } : undefined;
    return (safe ? show(messageText(message), safe, ...items) : show(messageText(message), ...items)) as Thenable<T | undefined>;
  }) as Show;
}

export const showInfo: Show = shown((m, ...r) => vscode.window.showInformationMessage(m, ...(r as string[])));
export const showWarning: Show = shown((m, ...r) => vscode.window.showWarningMessage(m, ...(r as string[])));
export const showError: Show = shown((m, ...r) => vscode.window.showErrorMessage(m, ...(r as string[])));

/** A status bar message for `ms`: the extension's own icon (`$(pass)`), then the text as a label (escaped, `$(` shown as text). */
export function showStatus(icon: string, text: string, ms: number): vscode.Disposable {
  return vscode.window.setStatusBarMessage(`${icon} ${labelText(text)}`, ms);
}

/** A progress notification whose title holds outside text. */
export function withProgress<R>(title: string, cancellable: boolean, task: (progress: vscode.Progress<{ message?: string; increment?: number }>, token: vscode.CancellationToken) => Thenable<R>): Thenable<R> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: messageText(title), cancellable }, (progress, token) =>
    task({ report: (v) => progress.report(v.message === undefined ? v : { ...v, message: messageText(v.message) }) }, token));
}
