/**
 * The one write guard and the one read guard of the desktop extension (issue 28 items 2 and 5),
 * on real folders with symbolic links, FIFOs and a canary file outside the workspace.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ConfinementError, openInside, readInside, writeInside } from '../../src/node-files';
import { confinedSegments } from '../../src/fetch-logic';

let base: string;
let ws: string;
let outside: string;
let canary: string;
let canaryMtime: number;
const bytes = (s: string) => new TextEncoder().encode(s);

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'netpolicy-guard-'));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  canary = join(outside, 'bashrc');
  writeFileSync(canary, 'echo canary\n');
  canaryMtime = statSync(canary).mtimeMs;
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function canaryIntact(): void {
  expect(readFileSync(canary, 'utf8')).toBe('echo canary\n');
  expect(statSync(canary).mtimeMs).toBe(canaryMtime);
  expect(readdirSync(outside).sort()).toEqual(['bashrc']);
}

describe('writeInside', () => {
  it('creates the folders on the way and writes the file', async () => {
    await writeInside(ws, ['.netpolicy', 'traces', 'acme_app-7.json'], bytes('{"x":1}'));
    expect(readFileSync(join(ws, '.netpolicy/traces/acme_app-7.json'), 'utf8')).toBe('{"x":1}');
    expect(readdirSync(join(ws, '.netpolicy/traces'))).toEqual(['acme_app-7.json']);
  });

  it('replaces an existing file whole, leaving no temporary file', async () => {
    mkdirSync(join(ws, 't'));
    writeFileSync(join(ws, 't/a.json'), 'old content that is longer');
    await writeInside(ws, ['t', 'a.json'], bytes('new'));
    expect(readFileSync(join(ws, 't/a.json'), 'utf8')).toBe('new');
    expect(readdirSync(join(ws, 't'))).toEqual(['a.json']);
  });

  it('does not write through a link as the final component (the SBOM beside a trace included)', async () => {
    mkdirSync(join(ws, '.netpolicy/traces'), { recursive: true });
    symlinkSync(canary, join(ws, '.netpolicy/traces/acme_app-7.cdx.json'));
    await expect(writeInside(ws, ['.netpolicy', 'traces', 'acme_app-7.cdx.json'], bytes('SBOM'))).rejects.toThrow(ConfinementError);
    await expect(writeInside(ws, ['.netpolicy', 'traces', 'acme_app-7.cdx.json'], bytes('SBOM'))).rejects.toThrow(/symbolic link/);
    canaryIntact();
    expect(readdirSync(join(ws, '.netpolicy/traces'))).toEqual(['acme_app-7.cdx.json']);
  });

  it('does not create a file through a dangling link', async () => {
    symlinkSync(join(outside, 'new-file'), join(ws, 'acme_app-7.json'));
    await expect(writeInside(ws, ['acme_app-7.json'], bytes('x'))).rejects.toThrow(ConfinementError);
    canaryIntact();
  });

  it('does not write into a folder that leads outside, nor create folders there', async () => {
    symlinkSync(outside, join(ws, '.netpolicy'));
    await expect(writeInside(ws, ['.netpolicy', 'traces', 'a.json'], bytes('x'))).rejects.toThrow(/leads outside/);
    canaryIntact();
  });

  it('writes through a folder link that stays inside', async () => {
    mkdirSync(join(ws, 'real'));
    symlinkSync(join(ws, 'real'), join(ws, 'alias'));
    await writeInside(ws, ['alias', 'a.json'], bytes('ok'));
    expect(readFileSync(join(ws, 'real/a.json'), 'utf8')).toBe('ok');
  });

  it('refuses a FIFO or a folder in place of the file, without blocking', async () => {
    execFileSync('mkfifo', [join(ws, 'fifo.json')]);
    mkdirSync(join(ws, 'dir.json'));
    await expect(writeInside(ws, ['fifo.json'], bytes('x'))).rejects.toThrow(/FIFO/);
    await expect(writeInside(ws, ['dir.json'], bytes('x'))).rejects.toThrow(/folder/);
  });

  it('never writes outside, whatever the path and links (property)', async () => {
    mkdirSync(join(ws, 'in'));
    symlinkSync(outside, join(ws, 'out-link'));
    symlinkSync(canary, join(ws, 'file-link'));
    symlinkSync(join(outside, 'nothing'), join(ws, 'dangling'));
    symlinkSync(join(ws, 'in'), join(ws, 'in-link'));
    const piece = fc.constantFrom('..', '.', 'in', 'in-link', 'out-link', 'file-link', 'dangling', 'new', 'a.json', 'bashrc', '~', '', '\\', '/');
    await fc.assert(fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 6 }), async (pieces) => {
      const confined = confinedSegments(pieces.join('/'));
      if (confined.problem !== undefined || confined.segments.length === 0) return;
      await writeInside(ws, confined.segments, bytes('written')).catch(() => undefined);
      canaryIntact();
    }), { numRuns: 300 });
  });
});

describe('openInside / readInside', () => {
  it('in Restricted Mode (a root), refuses a link that leads outside the folder', async () => {
    symlinkSync(canary, join(ws, 'netpolicy.config.json'));
    await expect(readInside(join(ws, 'netpolicy.config.json'), { root: ws, maxBytes: 1024 })).rejects.toThrow(/outside the workspace folder/);
  });

  it('in Restricted Mode, reads a file or a link that stays inside', async () => {
    writeFileSync(join(ws, 'a.json'), '{}');
    symlinkSync(join(ws, 'a.json'), join(ws, 'b.json'));
    expect(new TextDecoder().decode(await readInside(join(ws, 'b.json'), { root: ws, maxBytes: 1024 }))).toBe('{}');
  });

  it('refuses a dangling link, a FIFO (without blocking) and a file over the cap', async () => {
    symlinkSync(join(outside, 'nothing'), join(ws, 'dangling.json'));
    execFileSync('mkfifo', [join(ws, 'fifo.json')]);
    writeFileSync(join(ws, 'big.json'), 'x'.repeat(2048));
    await expect(openInside(join(ws, 'dangling.json'), { root: ws })).rejects.toThrow(/does not exist/);
    await expect(openInside(join(ws, 'fifo.json'), { root: ws })).rejects.toThrow(/FIFO/);
    await expect(openInside(join(ws, 'fifo.json'))).rejects.toThrow(/FIFO/);
    await expect(readInside(join(ws, 'big.json'), { root: ws, maxBytes: 1024 })).rejects.toThrow(/over the/);
  });

  it('in a trusted folder (no root), follows the link as the user chose', async () => {
    symlinkSync(canary, join(ws, 'trace.json'));
    expect(new TextDecoder().decode(await readInside(join(ws, 'trace.json'), { maxBytes: 1024 }))).toBe('echo canary\n');
    expect(existsSync(canary)).toBe(true);
  });
});
