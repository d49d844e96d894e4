/**
 * Every message the extension shows goes through notify.ts (issue 28 item 1): no other file
 * calls VS Code's show*Message, setStatusBarMessage or withProgress, whose texts render `[a](command:x)` as a live link.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';

const src = new URL('../../src/', import.meta.url).pathname;
const SINKS = /vscode\.window\.(showInformationMessage|showWarningMessage|showErrorMessage|withProgress|setStatusBarMessage)\s*\(/g;

describe('message sinks of the extension', () => {
  it('only notify.ts calls show*Message, setStatusBarMessage or withProgress', () => {
    const offenders: string[] = [];
    for (const name of readdirSync(src).filter((n) => n.endsWith('.ts'))) {
      if (name === 'notify.ts') continue;
      const text = readFileSync(join(src, name), 'utf8');
      for (const m of text.matchAll(SINKS)) offenders.push(`${name}: ${m[0]}`);
    }
    expect(offenders).toEqual([]);
  });

});

const calls: unknown[][] = [];
vi.mock('vscode', () => {
  const record = (name: string) => (...args: unknown[]) => {
    calls.push([name, ...args]);
    return Promise.resolve(undefined);
  };
  return {
    window: {
      showInformationMessage: record('info'),
      showWarningMessage: record('warning'),
      showErrorMessage: record('error'),
      setStatusBarMessage: (...args: unknown[]) => {
        calls.push(['status', ...args]);
        return { dispose() {} };
      },
      withProgress: (options: { title: string }, task: (p: { report(v: unknown): void }, t: unknown) => unknown) => {
        calls.push(['progress', options.title]);
        return task({ report: (v) => calls.push(['report', v]) }, {});
      },
    },
    ProgressLocation: { Notification: 15 },
  };
});

/** VS Code's parser of links in notifications (src/vs/base/common/linkedText.ts). */
const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/i;
const hostile = fc.array(fc.oneof(fc.constantFrom('[F](command:workbench.action.terminal.sendSequence?{"text":"sh<x"})', '](', '[', ']', '(', 'https://e.example', '\n', '\u202e', '\u001b', '`', '$(zap)'), fc.string({ maxLength: 6 })), { maxLength: 12 }).map((p) => p.join(''));

describe('notify.ts', () => {
  it('shows no live link, control character or icon from outside text, in any message, modal detail, progress title or report', async () => {
    const notify = await import('../../src/notify');
    await fc.assert(fc.asyncProperty(hostile, async (text) => {
      calls.length = 0;
      await notify.showInfo(`netpolicy: ${text}`, 'Show Output');
      await notify.showWarning(`netpolicy: ${text}`);
      await notify.showError(`netpolicy: ${text}`, { modal: true, detail: text }, 'OK');
      await notify.withProgress(`netpolicy: explaining ${text}`, true, async (p) => { p.report({ message: text }); });
      notify.showStatus('$(pass)', `netpolicy: ${text}`, 10);
      const shown = calls.flatMap((c) => c.slice(1)).flatMap((a) => (typeof a === 'string' ? [a] : a && typeof a === 'object' ? Object.values(a).filter((v): v is string => typeof v === 'string') : []));
      expect(shown.length).toBeGreaterThanOrEqual(9);
      for (const s of shown) {
        expect(s).not.toMatch(VSCODE_LINK);
        expect(s).not.toMatch(/[\u0000-\u001f\u202e]/);
      }
      // The buttons are passed on as given.
      expect(calls[0]).toEqual(['info', notify.messageText(`netpolicy: ${text}`), 'Show Output']);
      expect(notify.labelText(text)).not.toMatch(/(^|[^\\])\$\(/);
      // A status message: the extension's icon, then the text with no icon of its own.
      const status = calls.find((c) => c[0] === 'status')!;
      expect(status[1]).toBe(`$(pass) ${notify.labelText(`netpolicy: ${text}`)}`);
      expect(status[2]).toBe(10);
    }), { numRuns: 300 });
  });

  it('cuts a 1 MB message', async () => {
    const notify = await import('../../src/notify');
    calls.length = 0;
    await notify.showWarning(`netpolicy: ${'x'.repeat(1 << 20)}`);
    expect((calls[0][1] as string).length).toBeLessThanOrEqual(notify.MESSAGE_MAX + 1);
  });
});
