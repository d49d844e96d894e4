/**
 * FrameGuard byte for byte: whatever the frames and however the stream is cut, what it passes on
 * is the good frames, each with a canonical header and its body as sent (a body may hold anything,
 * `Content-Length` included: it is never searched), and every bad one is reported.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FrameGuard } from '../src/frame-guard';

const LIMITS = { maxHeaderBytes: 256, maxMessageBytes: 1000 };

interface Piece { bytes: Buffer; out: Buffer; bad: boolean }

const body = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b));
/** Bytes that never hold `ontent-` (what follows a bad header is searched for the next one). */
const noise = fc.string({ unit: fc.constantFrom('a', '{', '}', '"', ':', ' ', '\r', '\n', '\r\n\r\n', 'C', 'ontent', 'é', '1'), maxLength: 60 })
  .map((s) => Buffer.from(s, 'utf8')).filter((b) => !b.includes('ontent-'));

const good: fc.Arbitrary<Piece> = fc.tuple(
  body,
  fc.constantFrom('Content-Length', 'content-length', 'CONTENT-LENGTH'),
  fc.constantFrom('', 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n', 'X-Extra: 1\r\n', 'Content-Type: application/json\r\n'),
  fc.constantFrom('', '\r\n', '\n', ' \r\n'),
  fc.constantFrom('', ' ', '00'),
).map(([b, name, extra, before, pad]) => ({
  bytes: Buffer.concat([Buffer.from(`${before}${extra}${name}:${pad === ' ' ? ' ' : ''}${pad === '00' ? '00' : ''}${b.length}\r\n\r\n`), b]),
  out: Buffer.concat([Buffer.from(`Content-Length: ${b.length}\r\n\r\n`), b]),
  bad: false,
}));

const bad: fc.Arbitrary<Piece> = fc.tuple(
  fc.constantFrom('Content-Length: -5', 'Content-Length: abc', 'Content-Length: 1001', 'Content-Length: 99999999999', 'X-Only: 1', 'no colon here',
    'Content-Length: 3\r\nContent-Length: 4', 'Content-Type: text/plain; charset=latin1\r\nContent-Length: 2', `X-Long: ${'y'.repeat(300)}`),
  noise,
).map(([header, rest]) => ({ bytes: Buffer.concat([Buffer.from(`${header}\r\n\r\n`), rest]), out: Buffer.alloc(0), bad: true }));

function run(input: Buffer, cuts: number[]): Promise<{ out: Buffer; reports: string[] }> {
  const reports: string[] = [];
  const guard = new FrameGuard((p) => reports.push(p), LIMITS);
  const chunks: Buffer[] = [];
  guard.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve, reject) => {
    guard.on('end', () => resolve({ out: Buffer.concat(chunks), reports }));
    guard.on('error', reject);
    let at = 0;
    for (const cut of [...cuts].sort((a, b) => a - b)) {
      if (cut > at) guard.write(input.subarray(at, cut));
      at = Math.max(at, cut);
    }
    guard.end(input.subarray(at));
  });
}

describe('FrameGuard', () => {
  it('passes on the good frames exactly, reports the bad ones, however the input is cut', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.oneof(good, bad), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 10 }), async (pieces, cuts) => {
      const input = Buffer.concat(pieces.map((p) => p.bytes));
      const { out, reports } = await run(input, cuts.map((c) => c % (input.length + 1)));
      expect(out.equals(Buffer.concat(pieces.map((p) => p.out)))).toBe(true);
      // Each run of bad frames: one report, and one more counting the rest when there are several.
      expect(reports.length > 0).toBe(pieces.some((p) => p.bad));
      expect(reports.filter((r) => r.startsWith('bad frame skipped')).length).toBeLessThanOrEqual(pieces.filter((p) => p.bad).length);
    }), { numRuns: 1000 });
  });

  it('a header without its end is dropped at the limit, in one pass; the frame after it is read', async () => {
    const next = Buffer.from('Content-Length: 2\r\n\r\n{}');
    const { out, reports } = await run(Buffer.concat([Buffer.alloc(100_000, 'x'), next]), Array.from({ length: 50 }, (_, i) => i * 2001));
    expect(out.toString()).toBe('Content-Length: 2\r\n\r\n{}');
    expect(reports).toEqual([expect.stringMatching(/^bad frame skipped: a header longer than 256 bytes; header "x{80}"…$/)]);
  });

  it('the end of the input inside a frame is reported', async () => {
    expect((await run(Buffer.from('Content-Length: 10\r\n\r\n{}'), [])).reports).toEqual(['the input ended 8 bytes before the end of a message']);
    expect((await run(Buffer.from('Content-Len'), [])).reports).toEqual(['the input ended inside a header: "Content-Len"']);
  });
});
