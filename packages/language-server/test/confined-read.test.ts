/**
 * Issue 28 item 5: the one resolver of the Node host (src/confined-read.ts). Confined to a
 * workspace folder, a file is read only when its real path stays inside the folder's; a FIFO is
 * never waited on; a file too large is refused. Unconfined (a trusted workspace), links are followed.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readResolved } from '../src/confined-read';
import { FileProblem } from '../src/host';
import { nodeHost } from '../src/node-host';

const onPosix = process.platform !== 'win32';

/** The problem `read` rejects with, or its text. */
function outcome(read: () => string): string {
  try {
    return `read: ${read()}`;
  } catch (err) {
    expect(err).toBeInstanceOf(FileProblem);
    return (err as FileProblem).problem;
  }
}

describe.skipIf(!onPosix)('readResolved', () => {
  const outer = mkdtempSync(join(tmpdir(), 'np-ls-confined-'));
  const ws = join(outer, 'ws');
  const outside = join(outer, 'outside');
  mkdirSync(join(ws, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.json'), 'SECRET');
  writeFileSync(join(ws, 'sub', 'in.json'), 'INSIDE');
  symlinkSync(join(outside, 'secret.json'), join(ws, 'out-link.json'));
  symlinkSync('sub/in.json', join(ws, 'in-link.json'));
  symlinkSync(outside, join(ws, 'out-folder'));
  symlinkSync(join(ws, 'nowhere'), join(ws, 'dangling.json'));
  spawnSync('mkfifo', [join(ws, 'fifo')]);
  writeFileSync(join(ws, 'big.json'), 'x'.repeat(2048));
  // The workspace folder itself through a link: its real path is what counts.
  symlinkSync(ws, join(outer, 'ws-link'));

  const cases: Array<[string, string, string | undefined, string]> = [
    ['a file inside', join(ws, 'sub', 'in.json'), ws, 'read: INSIDE'],
    ['a link that stays inside', join(ws, 'in-link.json'), ws, 'read: INSIDE'],
    ['a link out of the folder', join(ws, 'out-link.json'), ws, 'it is a symbolic link that leads out of the workspace folder'],
    ['a file under a linked folder out of it', join(ws, 'out-folder', 'secret.json'), ws, 'a folder on its path is a symbolic link that leads out of the workspace folder'],
    ['a path outside the folder', join(outside, 'secret.json'), ws, 'it is outside the workspace folder'],
    ['a dangling link', join(ws, 'dangling.json'), ws, 'it does not exist (ENOENT)'],
    ['a FIFO (not waited on)', join(ws, 'fifo'), ws, 'it is a FIFO (named pipe), not a regular file'],
    ['a folder', join(ws, 'sub'), ws, 'it is a folder, not a regular file'],
    ['a file over the cap', join(ws, 'big.json'), ws, 'it is 0 MB, more than the 0 MB the server reads from such a file'],
    ['the folder through a link', join(outer, 'ws-link', 'in-link.json'), join(outer, 'ws-link'), 'read: INSIDE'],
    ['unconfined: a link out is followed', join(ws, 'out-link.json'), undefined, 'read: SECRET'],
    ['unconfined: a FIFO is still refused', join(ws, 'fifo'), undefined, 'it is a FIFO (named pipe), not a regular file'],
  ];
  for (const [name, path, within, expected] of cases) {
    it(name, () => {
      expect(outcome(() => readResolved(path, name.includes('cap') ? 1024 : 1 << 20, within))).toBe(expected);
    });
  }

  it('the host reads through it: readFile and readChunks confined alike', async () => {
    await expect(nodeHost.readFile!(join(ws, 'out-link.json'), 1 << 20, ws)).rejects.toThrow(/leads out of the workspace folder/);
    const chunks = async (within?: string) => {
      let text = '';
      for await (const c of nodeHost.readChunks!(join(ws, 'out-link.json'), within)) text += Buffer.from(c).toString();
      return text;
    };
    await expect(chunks(ws)).rejects.toThrow(/leads out of the workspace folder/);
    expect(await chunks()).toBe('SECRET');
  });
});
