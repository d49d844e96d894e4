/**
 * Issue 28 item 1: the one sink (src/sink.ts). Every log line and notification of a guarded
 * connection, whatever text it was given, holds no link VS Code would render and no raw control
 * character, and is cut; and no source file of the server sends those messages another way.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { hostile, unsafe } from './hostile';
import { guardMessages, logText, MAX_LOG_CHARS, MAX_NOTIFICATION_CHARS, notificationText } from '../src/sink';

/** A connection's outlets, recording what would be sent. */
function fakeConnection() {
  const sent: Array<{ kind: string; message: string }> = [];
  const remote = Object.fromEntries(['error', 'warn', 'info', 'log', 'debug'].map((k) => [k, (message: string) => { sent.push({ kind: k, message }); }]));
  const window = Object.fromEntries(['showErrorMessage', 'showWarningMessage', 'showInformationMessage'].map((k) => [k, (message: string) => { sent.push({ kind: k, message }); return Promise.resolve(undefined); }]));
  return { connection: { console: remote, window } as any, sent };
}

describe('the message sink', () => {
  it('escapes every log line and notification of a guarded connection', () => {
    const { connection, sent } = fakeConnection();
    guardMessages(connection);
    guardMessages(connection); // idempotent: escaped once, not twice
    fc.assert(fc.property(hostile, (s) => {
      sent.length = 0;
      connection.console.error(`[netpolicy] ${s}`);
      connection.console.log(s);
      connection.window.showWarningMessage(`netpolicy.filePatterns: ${s}`);
      connection.window.showErrorMessage(s);
      expect(sent).toHaveLength(4);
      for (const m of sent) expect(unsafe(m.message)).toBe(false);
      expect(sent[1].message).toBe(logText(s));
      expect(sent[3].message).toBe(notificationText(s));
    }), { numRuns: 1000 });
  });

  it('breaks the link of the report and cuts long text', () => {
    const { connection, sent } = fakeConnection();
    guardMessages(connection);
    connection.window.showWarningMessage('netpolicy.filePatterns: [F](command:x?{"a":1}) has too many');
    expect(sent[0].message).toBe('netpolicy.filePatterns: [F] (command:x?{"a":1}) has too many');
    connection.console.log('x'.repeat(MAX_LOG_CHARS * 3));
    connection.window.showInformationMessage('y'.repeat(MAX_NOTIFICATION_CHARS * 3));
    expect(sent[1].message).toHaveLength(MAX_LOG_CHARS + 1);
    expect(sent[2].message).toHaveLength(MAX_NOTIFICATION_CHARS + 1);
  });

  it('is the only way out: no source file sends window/showMessage or window/logMessage itself', () => {
    const dir = new URL('../src/', import.meta.url);
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts') && n !== 'sink.ts')) {
      const text = readFileSync(new URL(name, dir), 'utf8');
      expect({ name, found: text.match(/window\/(showMessage|logMessage)|ShowMessage(Request)?Notification|LogMessageNotification|\$\/logTrace/g) }).toEqual({ name, found: null });
    }
  });
});
