/**
 * The framing of LSP over a byte stream (`Content-Length: N\r\n\r\n` + N bytes), checked before
 * vscode-jsonrpc's reader sees it: a Transform in front of stdin that passes on each well-formed
 * frame with a canonical header (`Content-Length` alone) and its body as it arrives.
 *
 * vscode-jsonrpc's reader, given a bad frame (a `Content-Length` of -5 or `abc`, none, a header
 * line without a colon), reports an error and then reads the rest of the stream out of step: the
 * server goes deaf. It waits for all of a `Content-Length: 99999999999`, and it scans the whole
 * buffer again for the end of a header on every chunk (a header with no end costs quadratic time).
 * Here the header is scanned once (linear), limited to MAX_HEADER_BYTES, and a length must be
 * digits and at most MAX_MESSAGE_BYTES. A bad frame is reported (`report`: the server logs it on
 * stderr and to the client) and skipped: the guard then looks for the next `Content-`, which
 * starts the next header, from the end of the bad header (its body, of a length the bad header
 * does not give, is skipped that way; a header without its blank line within the limit is skipped
 * from the limit on). Each byte is searched at most twice. Blank lines between frames are skipped.
 * A run of bad headers is reported once, and counted when the next good frame comes.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** The header block of one frame, its blank line included, at most. */
export const MAX_HEADER_BYTES = 8192;
/** The body of one message, at most (a policy of tens of megabytes is opened with room to spare). */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export interface FrameLimits {
  maxHeaderBytes: number;
  maxMessageBytes: number;
}

const CRLF2 = Buffer.from('\r\n\r\n');
const CONTENT = Buffer.from('content');
/** Bytes kept, while looking for a header, in case `Content-` is split between two chunks. */
const TAIL = CONTENT.length + 1;

/** At most this much of a bad header is quoted in a report. */
const QUOTE = 80;

function quote(bytes: Buffer): string {
  const s = JSON.stringify(bytes.subarray(0, QUOTE).toString('latin1'));
  return bytes.length > QUOTE ? `${s}…` : s;
}

export class FrameGuard extends Transform {
  private buf: Buffer = Buffer.alloc(0);
  private state: 'header' | 'body' | 'resync' = 'header';
  /** Bytes of the current body still to pass on. */
  private remaining = 0;
  /** Where the search for the end of the header resumes (everything before it was searched). */
  private scanFrom = 0;
  private readonly limits: FrameLimits;
  /** Bad headers met since the last one reported (a run of noise is reported once, summed up at the next good frame). */
  private unreported = 0;
  private reported = false;

  constructor(
    private readonly report: (problem: string) => void,
    limits: Partial<FrameLimits> = {},
  ) {
    super();
    this.limits = { maxHeaderBytes: MAX_HEADER_BYTES, maxMessageBytes: MAX_MESSAGE_BYTES, ...limits };
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.buf = this.buf.length > 0 ? Buffer.concat([this.buf, chunk]) : chunk;
    try {
      this.drain();
    } catch (e) {
      // Never an error on the stream (the pipe would stop, and the server go deaf): say it, start afresh.
      this.report(`bad input skipped (${e instanceof Error ? e.message : String(e)})`);
      this.buf = Buffer.alloc(0);
      this.state = 'resync';
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.unreported > 0) this.report(`${this.unreported} more bad header${this.unreported === 1 ? '' : 's'} skipped before the end of the input`);
    if (this.state === 'body') this.report(`the input ended ${this.remaining} bytes before the end of a message`);
    else if (this.state === 'header' && this.buf.length > 0) this.report(`the input ended inside a header: ${quote(this.buf)}`);
    done();
  }

  private drain(): void {
    while (this.buf.length > 0) {
      if (this.state === 'body') {
        const n = Math.min(this.remaining, this.buf.length);
        this.push(this.buf.subarray(0, n));
        this.remaining -= n;
        this.buf = this.buf.subarray(n);
        if (this.remaining === 0) this.state = 'header';
      } else if (this.state === 'resync') {
        const at = headerStart(this.buf);
        if (at < 0) {
          this.buf = this.buf.subarray(Math.max(0, this.buf.length - TAIL));
          return;
        }
        this.buf = this.buf.subarray(at);
        this.state = 'header';
        this.scanFrom = 0;
      } else if (!this.header()) return;
    }
  }

  /** Reads a header at the start of `buf`; false when more bytes are needed. */
  private header(): boolean {
    let s = 0;
    while (s < this.buf.length && (this.buf[s] === 13 || this.buf[s] === 10 || this.buf[s] === 32 || this.buf[s] === 9)) s++;
    if (s > 0) {
      this.buf = this.buf.subarray(s);
      this.scanFrom = Math.max(0, this.scanFrom - s);
      if (this.buf.length === 0) return false;
    }
    const end = this.buf.indexOf(CRLF2, this.scanFrom);
    if (end < 0 || end + CRLF2.length > this.limits.maxHeaderBytes) {
      if (end < 0 && this.buf.length < this.limits.maxHeaderBytes) {
        this.scanFrom = Math.max(0, this.buf.length - (CRLF2.length - 1));
        return false;
      }
      this.skip(`a header longer than ${this.limits.maxHeaderBytes} bytes`, this.buf, this.limits.maxHeaderBytes - TAIL);
      return true;
    }
    const block = this.buf.subarray(0, end);
    const length = this.contentLength(block, end + CRLF2.length);
    if (length === undefined) return true;
    this.buf = this.buf.subarray(end + CRLF2.length);
    this.scanFrom = 0;
    if (this.unreported > 0) this.report(`${this.unreported} more bad header${this.unreported === 1 ? '' : 's'} skipped before this frame`);
    this.unreported = 0;
    this.reported = false;
    this.push(Buffer.from(`Content-Length: ${length}\r\n\r\n`, 'ascii'));
    if (length > 0) {
      this.state = 'body';
      this.remaining = length;
    }
    return true;
  }

  /** The body length a header block states, or undefined (reported, and the guard resyncs) when the block is bad. */
  private contentLength(block: Buffer, blockEnd: number): number | undefined {
    let length: number | undefined;
    for (const line of block.toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) return this.skip(`a header line without a colon (${JSON.stringify(line.slice(0, QUOTE))})`, block, blockEnd);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^[0-9]{1,15}$/.test(value)) return this.skip(`Content-Length ${JSON.stringify(value.slice(0, QUOTE))} is not a number of bytes`, block, blockEnd);
        const n = Number(value);
        if (n > this.limits.maxMessageBytes) return this.skip(`Content-Length ${n} is over the limit of ${this.limits.maxMessageBytes} bytes`, block, blockEnd);
        if (length !== undefined && length !== n) return this.skip('two different Content-Length headers', block, blockEnd);
        length = n;
      } else if (name === 'content-type') {
        const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(value)?.[1]?.toLowerCase();
        if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return this.skip(`charset ${JSON.stringify(charset.slice(0, QUOTE))} is not supported (UTF-8 only)`, block, blockEnd);
      }
    }
    if (length === undefined) return this.skip('a header without Content-Length', block, blockEnd);
    return length;
  }

  /** Reports a bad header and looks for the next one from `resumeAt`. */
  private skip(problem: string, block: Buffer, resumeAt: number): undefined {
    if (this.reported) this.unreported++;
    else this.report(`bad frame skipped: ${problem}; header ${quote(block)}`);
    this.reported = true;
    this.buf = this.buf.subarray(resumeAt);
    this.state = 'resync';
    this.scanFrom = 0;
    return undefined;
  }
}

/** The offset of the first `Content-` (any case) in `buf`, or -1: each `-` checked against the 7 bytes before it. */
function headerStart(buf: Buffer): number {
  for (let dash = buf.indexOf(45, CONTENT.length); dash >= 0; dash = buf.indexOf(45, dash + 1)) {
    let k = 0;
    while (k < CONTENT.length && (buf[dash - CONTENT.length + k] | 0x20) === CONTENT[k]) k++;
    if (k === CONTENT.length) return dash - CONTENT.length;
  }
  return -1;
}
