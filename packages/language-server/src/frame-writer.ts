/**
 * The server's writer over stdio: the frames (header and JSON body together) of the messages of
 * one turn of the event loop, written at its end in ONE write. vscode-jsonrpc's StreamMessageWriter
 * writes the header, waits for that write's callback behind a semaphore, then writes the body: two
 * writes per message, each waking the client (on Linux a pipe's writes are synchronous, and some
 * took a millisecond). The workspace check publishes many files per turn: those writes took about
 * a tenth of its time (docs/performance.md, issue 20 round 4). Frames keep their order.
 */
import { AbstractMessageWriter, type Message, type MessageWriter } from 'vscode-languageserver/node';
import { PieceCache } from './frozen-json';

/**
 * A message's frame, encoded once into a buffer of its size: a string frame (header + body) was
 * copied whole again to be encoded by the write (2-3 ms for a 410 KB answer of inlay hints).
 */
function wholeFrame(msg: Message): Buffer {
  const json = JSON.stringify(msg);
  const length = Buffer.byteLength(json, 'utf8');
  const header = `Content-Length: ${length}\r\n\r\n`;
  const frame = Buffer.allocUnsafe(header.length + length);
  frame.write(header, 0, 'latin1');
  frame.write(json, header.length, 'utf8');
  return frame;
}

export class FrameWriter extends AbstractMessageWriter implements MessageWriter {
  private errors = 0;

  constructor(private readonly out: NodeJS.WritableStream) {
    super();
    out.on('error', (error: unknown) => this.fireError(error));
    out.on('close', () => this.fireClose());
  }

  /** Frames waiting for the end of this turn, and the settling of each message's promise. */
  private queued: Buffer[] = [];
  private waiting: Array<{ msg: Message; resolve: () => void; reject: (error: unknown) => void }> = [];

  /** The bytes of the frozen elements of long array results (frozen-json.ts). */
  private readonly pieces = new PieceCache();

  write(msg: Message): Promise<void> {
    let frame: Buffer;
    try {
      frame = this.pieces.frame(msg) ?? wholeFrame(msg);
    } catch (error) {
      this.fireError(error, msg);
      return Promise.reject(error);
    }
    if (this.queued.length === 0) setImmediate(() => this.flush());
    this.queued.push(frame);
    return new Promise<void>((resolve, reject) => this.waiting.push({ msg, resolve, reject }));
  }

  private flush(): void {
    const frames = this.queued.length === 1 ? this.queued[0] : Buffer.concat(this.queued);
    const waiting = this.waiting;
    this.queued = [];
    this.waiting = [];
    this.out.write(frames, (error?: Error | null) => {
      for (const w of waiting) {
        if (!error) { w.resolve(); continue; }
        this.errors++;
        this.fireError(error, w.msg, this.errors);
        w.reject(error);
      }
    });
  }

  end(): void {
    this.out.end();
  }
}
