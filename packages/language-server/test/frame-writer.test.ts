/**
 * FrameWriter: the messages of one turn in one write, in order, each a frame vscode-jsonrpc's own
 * reader reads back exactly (multi-byte text counted in bytes); a failed write rejects every
 * message it carried and is reported.
 */
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { StreamMessageReader, type Message } from 'vscode-languageserver/node';
import { FrameWriter } from '../src/frame-writer';

function readBack(stream: PassThrough, count: number): Promise<Message[]> {
  const reader = new StreamMessageReader(stream);
  const got: Message[] = [];
  return new Promise((resolve) => {
    reader.listen((m) => {
      got.push(m);
      if (got.length === count) { reader.dispose(); resolve(got); }
    });
  });
}

const text = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '"', '\\', '\n', '\u202e', 'Content-Length: 3\r\n\r\n'), maxLength: 40 });
const message = fc.record({ jsonrpc: fc.constant('2.0'), method: text, params: fc.record({ uri: text, n: fc.integer() }) });

describe('FrameWriter', () => {
  it('writes the messages of a turn in one write, in order, and a reader reads them back exactly', async () => {
    await fc.assert(fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 12 }), async (messages) => {
      const out = new PassThrough();
      let writes = 0;
      const write = out.write.bind(out);
      out.write = ((...args: Parameters<typeof out.write>) => { writes++; return write(...args); }) as typeof out.write;
      const reading = readBack(out, messages.length);
      const writer = new FrameWriter(out);
      await Promise.all(messages.map((m) => writer.write(m as Message)));
      expect(writes).toBe(1);
      expect(await reading).toEqual(messages);
    }), { numRuns: 100 });
  }, 10_000);

  it('messages of later turns follow in order', async () => {
    const out = new PassThrough();
    const reading = readBack(out, 3);
    const writer = new FrameWriter(out);
    await writer.write({ jsonrpc: '2.0', method: 'a' } as Message);
    await new Promise((r) => setTimeout(r, 5));
    await Promise.all([writer.write({ jsonrpc: '2.0', method: 'b' } as Message), writer.write({ jsonrpc: '2.0', method: 'c' } as Message)]);
    expect((await reading).map((m) => (m as { method: string }).method)).toEqual(['a', 'b', 'c']);
  });

  it('a failed write rejects each message it carried and fires an error per message', async () => {
    const out = new Writable({ write: (_chunk, _enc, cb) => cb(new Error('EPIPE')) });
    out.on('error', () => undefined);
    const writer = new FrameWriter(out);
    const errors: unknown[] = [];
    writer.onError(([error, msg]) => errors.push([error.message, (msg as { method?: string } | undefined)?.method]));
    const results = await Promise.allSettled([writer.write({ jsonrpc: '2.0', method: 'x' } as Message), writer.write({ jsonrpc: '2.0', method: 'y' } as Message)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(errors).toContainEqual(['EPIPE', 'x']);
    expect(errors).toContainEqual(['EPIPE', 'y']);
  });

  it('a message that cannot be serialised is refused alone', async () => {
    const out = new PassThrough();
    const writer = new FrameWriter(out);
    const cyclic: Record<string, unknown> = { jsonrpc: '2.0', method: 'loop' };
    cyclic.params = cyclic;
    await expect(writer.write(cyclic as unknown as Message)).rejects.toThrow();
    const reading = readBack(out, 1);
    await writer.write({ jsonrpc: '2.0', method: 'ok' } as Message);
    expect(((await reading)[0] as { method: string }).method).toBe('ok');
  });
});
