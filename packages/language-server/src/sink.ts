/**
 * The one place where the server's words leave for a person: every log line
 * (`window/logMessage`) and every notification (`window/showMessage`) the connection sends passes
 * `escapeMessage` here. Outside text reaches both: a `filePatterns` entry, a key of
 * `netpolicy.config.json`, a path from settings, a trace's problem, a library's error message.
 * VS Code renders `[text](command:ID?args)` in a notification as a live link that runs the
 * command on a click, and a newline or bidi control can forge or reorder a line of the output.
 *
 * `guardMessages` wraps the connection's own outlets (`connection.console.*`,
 * `connection.window.show*Message`), so nothing written through them, by the server or by
 * vscode-languageserver itself, escapes unescaped; the server writes nowhere else.
 */
import { escapeMessage } from '@netpolicy/core';
import type { Connection, MessageActionItem } from 'vscode-languageserver';

/** A log line is cut to this many characters (a 100,000-path list is not one line of 5 MB). */
export const MAX_LOG_CHARS = 2000;
/** A notification is cut to this many characters (VS Code shows a few lines of it anyway). */
export const MAX_NOTIFICATION_CHARS = 1000;

/** A log line as the client receives it: control and bidi characters escaped, link syntax broken, cut. */
export function logText(message: string): string {
  return escapeMessage(String(message), MAX_LOG_CHARS);
}

/** A notification as the client receives it (see `logText`). */
export function notificationText(message: string): string {
  return escapeMessage(String(message), MAX_NOTIFICATION_CHARS);
}

const LOG_LEVELS = ['error', 'warn', 'info', 'log', 'debug'] as const;
const SHOW_METHODS = ['showErrorMessage', 'showWarningMessage', 'showInformationMessage'] as const;
type Show = (message: string, ...actions: MessageActionItem[]) => Promise<MessageActionItem | undefined> | void;

/** Connections already guarded (node.ts and browser.ts guard theirs before `startServer` does). */
const guarded = new WeakSet<object>();

/** Makes every log line and notification of `connection` pass `logText` / `notificationText`. Idempotent. */
export function guardMessages(connection: Pick<Connection, 'console' | 'window'>): void {
  const { console: remote, window } = connection;
  if (guarded.has(remote)) return;
  guarded.add(remote);
  for (const level of LOG_LEVELS) {
    const write = remote[level].bind(remote) as (message: string) => void;
    remote[level] = (message: string) => write(logText(message));
  }
  const shows = window as unknown as Record<(typeof SHOW_METHODS)[number], Show>;
  for (const method of SHOW_METHODS) {
    const show = shows[method].bind(window);
    shows[method] = (message: string, ...actions: MessageActionItem[]) => show(notificationText(message), ...actions);
  }
}
