/**
 * The server's writer over stdio: the frames (header and JSON body together) of the messages of
 * one turn of the event loop, written at its end in ONE write. vscode-jsonrpc's StreamMessageWriter
 * writes the header, waits for that write's callback behind a semaphore, then writes the body: two
 * writes per message, each waking the client (on Linux a pipe's writes are synchronous, and some
 * took a millisecond). The workspace check publishes many files per turn: those writes took about
 * a tenth of its time (docs/performance.md, issue 20 round 4). Frames keep their order.
 */
import { AbstractMessageWriter, type Message, type MessageWriter } from 'vscode-languageserver/node';

export class FrameWriter extends AbstractMessageWriter implements MessageWriter {
  private errors = 0;

  constructor(private readonly out: NodeJS.WritableStream) {
    super();
    out.on('error', (error: unknown) => this.fireError(error));
    out.on('close', () => this.fireClose());
  }

  /** Frames waiting for the end of this turn, and the settling of each message's promise. */
  private queued: string[] = [];
  private waiting: Array<{ msg: Message; resolve: () => void; reject: (error: unknown) => void }> = [];

  write(msg: Message): Promise<void> {
    let json: string;
    try {
      json = JSON.stringify(msg);
    } catch (error) {
      this.fireError(error, msg);
      return Promise.reject(error);
    }
    if (this.queued.length === 0) setImmediate(() => this.flush());
    this.queued.push(`Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`);
    return new Promise<void>((resolve, reject) => this.waiting.push({ msg, resolve, reject }));
  }

  private flush(): void {
    const text = this.queued.length === 1 ? this.queued[0] : this.queued.join('');
    const waiting = this.waiting;
    this.queued = [];
    this.waiting = [];
    this.out.write(text, 'utf8', (error?: Error | null) => {
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
