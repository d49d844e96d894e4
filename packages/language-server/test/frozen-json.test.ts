/**
 * PieceCache (frozen-json.ts): a long array result is framed from each element's bytes, the bytes
 * of frozen elements kept. The frame is byte for byte what encoding the whole message gives, and
 * what was kept is never stale: only JSON that cannot change is kept.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { StreamMessageReader, type Message } from 'vscode-languageserver/node';
import { MIN_PIECES, PieceCache } from '../src/frozen-json';

/** The frame of `msg` encoded whole, as FrameWriter does for any other message. */
function whole(msg: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(msg), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'latin1'), body]);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const text = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '"', '\\', '\n', '\u202e', '\u0000', 'Content-Length: 3\r\n\r\n'), maxLength: 12 });
const hint = fc.record({
  position: fc.record({ line: fc.nat(), character: fc.nat() }),
  label: text,
  paddingLeft: fc.option(fc.boolean(), { nil: undefined }),
  extra: fc.option(fc.oneof(fc.double(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 })), { nil: undefined }),
});
/** An element: a hint frozen all the way, frozen at the top only, not frozen, or a scalar. */
const element = fc.oneof(
  hint.map(deepFreeze),
  hint.map((h) => Object.freeze(h)),
  hint,
  text,
  fc.integer(),
  fc.constant(null),
);

describe('PieceCache', () => {
  afterEach(() => vi.restoreAllMocks());

  it('frames a long array result byte for byte as the whole message, answer after answer', () => {
    fc.assert(fc.property(fc.array(element, { minLength: MIN_PIECES, maxLength: MIN_PIECES + 40 }), fc.oneof(fc.integer(), text, fc.constant(null)), (result, id) => {
      const cache = new PieceCache();
      const msg = { jsonrpc: '2.0', id, result };
      expect(cache.frame(msg)).toEqual(whole(msg));
      // Again, with the same elements (what was kept is used) in another order and with another id.
      const again = { jsonrpc: '2.0', id: 7, result: [...result].reverse() };
      expect(cache.frame(again)).toEqual(whole(again));
    }), { numRuns: 25 });
  }, 60_000);

  it('a reader reads the frame back as the message', async () => {
    const result = Array.from({ length: MIN_PIECES }, (_, i) => deepFreeze({ position: { line: i, character: 2 }, label: `é ${i} 😀`, paddingLeft: true }));
    const msg = { jsonrpc: '2.0', id: 3, result };
    const out = new PassThrough();
    const reader = new StreamMessageReader(out);
    const read = new Promise<Message>((resolve) => reader.listen(resolve));
    out.write(new PieceCache().frame(msg)!);
    expect(await read).toEqual(msg);
    reader.dispose();
  });

  it('keeps the bytes of frozen elements: a later answer does not encode them again', () => {
    const result = Array.from({ length: MIN_PIECES }, (_, i) => deepFreeze({ position: { line: i, character: 0 }, label: 'ssh', paddingLeft: true }));
    const cache = new PieceCache();
    cache.frame({ jsonrpc: '2.0', id: 1, result });
    const stringify = vi.spyOn(JSON, 'stringify');
    const frame = cache.frame({ jsonrpc: '2.0', id: 2, result });
    // The envelope's two values only.
    expect(stringify).toHaveBeenCalledTimes(2);
    stringify.mockRestore();
    expect(frame).toEqual(whole({ jsonrpc: '2.0', id: 2, result }));
  });

  it('never answers stale bytes for what may change: a frozen object holding a mutable one, a getter', () => {
    const inner = { line: 1, character: 1 };
    const shallow = Object.freeze({ position: inner, label: 'x' });
    let calls = 0;
    const withGetter = Object.freeze(Object.defineProperty({}, 'label', { get: () => `call ${++calls}`, enumerable: true }));
    const result = [shallow, withGetter, ...Array.from({ length: MIN_PIECES }, () => 0)];
    const cache = new PieceCache();
    expect(cache.frame({ jsonrpc: '2.0', id: 1, result })).toEqual(whole({ jsonrpc: '2.0', id: 1, result: [shallow, { label: 'call 1' }, ...result.slice(2)] }));
    inner.line = 99;
    const second = cache.frame({ jsonrpc: '2.0', id: 1, result })!.toString('utf8');
    expect(second).toContain('{"position":{"line":99,"character":1},"label":"x"}');
    expect(second).toContain('{"label":"call 2"}');
  });

  it('leaves any other message to be encoded whole: short results, notifications, requests, errors', () => {
    const cache = new PieceCache();
    const long = Array.from({ length: MIN_PIECES }, () => 1);
    expect(cache.frame({ jsonrpc: '2.0', id: 1, result: long.slice(1) })).toBeUndefined();
    expect(cache.frame({ jsonrpc: '2.0', id: 1, result: { items: long } })).toBeUndefined();
    expect(cache.frame({ jsonrpc: '2.0', method: 'x', params: long })).toBeUndefined();
    expect(cache.frame({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' }, result: long })).toBeUndefined();
    expect(cache.frame({ jsonrpc: '2.0', id: { nested: true }, result: long })).toBeUndefined();
  });
});
