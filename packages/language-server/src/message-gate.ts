/**
 * What comes between a transport's MessageReader and the connection: every message is checked
 * before vscode-languageserver sees it (it reads `initialize`'s params, and the text document
 * notifications, before any handler of ours runs). Platform-neutral (node.ts and browser.ts).
 *
 * - A body that is not JSON: ParseError (-32700, id null); a batch (an array: LSP has none), a
 *   message that is not an object, has no valid `jsonrpc`/`method`/`id`: InvalidRequest (-32600).
 * - The lifecycle (LSP 3.17, lifecycle.ts): before `initialize`, a request is ServerNotInitialized
 *   (-32002) and a notification is dropped (but `exit`); a second `initialize` is InvalidRequest;
 *   after `shutdown`, every request is InvalidRequest and every notification but `exit` is
 *   dropped; after `exit`, nothing is read.
 * - Params (params.ts): a request whose params do not fit is InvalidParams (-32602) with a message
 *   naming the member; such a notification is dropped.
 * Every refusal is logged (`log`), and answered through the connection's own writer.
 */
import { Emitter, ErrorCodes, type DataCallback, type Disposable, type Message, type MessageReader, type MessageWriter, type PartialMessageInfo } from 'vscode-languageserver';
import { Lifecycle } from './lifecycle';
import { checkParams } from './params';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** At most this much of a refused message is quoted in the log. */
const QUOTE = 120;

function quote(value: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > QUOTE ? `${s.slice(0, QUOTE)}…` : s;
}

export class GatedMessageReader implements MessageReader {
  private readonly errors = new Emitter<Error>();
  /** Where the connection is in its lifecycle (moved by the messages let through). */
  readonly lifecycle = new Lifecycle();
  private readonly subscriptions: Disposable[] = [];

  constructor(
    private readonly inner: MessageReader,
    private readonly writer: MessageWriter,
    private readonly log: (message: string) => void,
  ) {}

  /** True once a `shutdown` request went through (the exit code of a closed input is 0 then, else 1). */
  get shutDown(): boolean {
    return this.lifecycle.shutDown;
  }

  get onError() {
    return this.errors.event;
  }

  get onClose() {
    return this.inner.onClose;
  }

  get onPartialMessage(): MessageReader['onPartialMessage'] {
    return this.inner.onPartialMessage as (listener: (e: PartialMessageInfo) => unknown) => Disposable;
  }

  listen(callback: DataCallback): Disposable {
    this.subscriptions.push(this.inner.onError((error) => {
      // The reader could not decode a body: a JSON-RPC parse error, answered (there is no id to answer to).
      if (error instanceof SyntaxError) {
        this.log(`a message body is not JSON (${error.message}): answered ParseError`);
        this.answer(null, ErrorCodes.ParseError, `Parse error: the message body is not JSON (${error.message})`);
      } else this.errors.fire(error);
    }));
    return this.inner.listen((message) => this.accept(message as unknown, callback));
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.inner.dispose();
    this.errors.dispose();
  }

  private answer(id: number | string | null, code: number, message: string): void {
    this.writer.write({ jsonrpc: '2.0', id, error: { code, message } } as Message).catch(() => undefined);
  }

  private accept(message: unknown, pass: DataCallback): void {
    // After `exit` the process is ending (lifecycle.ts): nothing more is read.
    if (this.lifecycle.phase === 'exited') return;
    if (Array.isArray(message)) {
      this.log(`a batch of ${message.length} messages refused (LSP has no batches)`);
      this.answer(null, ErrorCodes.InvalidRequest, 'Invalid Request: batches are not supported (LSP sends one message per frame)');
      return;
    }
    if (!isObject(message)) {
      this.log(`a message that is not a JSON object refused: ${quote(message)}`);
      this.answer(null, ErrorCodes.InvalidRequest, 'Invalid Request: a message must be a JSON object');
      return;
    }
    const hasId = Object.hasOwn(message, 'id');
    const id = message.id;
    const validId = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
    const method = message.method;
    if (method === undefined && !hasId) {
      this.log(`a message with neither method nor id refused: ${quote(message)}`);
      this.answer(null, ErrorCodes.InvalidRequest, 'Invalid Request: a message needs a method (request, notification) or an id (response)');
      return;
    }
    if (message.jsonrpc !== '2.0' || (method !== undefined && typeof method !== 'string') || (hasId && !validId && !(method === undefined && id === null))) {
      const answerId = validId ? (id as number | string) : null;
      this.log(`an invalid message refused: ${quote(message)}`);
      if (hasId || method === undefined) this.answer(answerId, ErrorCodes.InvalidRequest, 'Invalid Request: expected "jsonrpc": "2.0", a string method and an integer or string id');
      return;
    }
    // A response to one of the server's requests: the connection matches it.
    if (method === undefined) {
      pass(message as unknown as Message);
      return;
    }
    const name = method as string;
    if (hasId) this.request(id as number | string, name, message, pass);
    else this.notification(name, message, pass);
  }

  private request(id: number | string, method: string, message: Record<string, unknown>, pass: DataCallback): void {
    const refused = this.lifecycle.refusal(method);
    if (refused) {
      this.log(refused.log);
      this.answer(id, refused.code, refused.message);
      return;
    }
    const problem = checkParams(method, message.params);
    if (problem) {
      this.log(`${method}: ${problem}: answered InvalidParams`);
      this.answer(id, ErrorCodes.InvalidParams, `${method}: ${problem}`);
      return;
    }
    this.lifecycle.passed(method);
    pass(message as unknown as Message);
  }

  private notification(method: string, message: Record<string, unknown>, pass: DataCallback): void {
    const dropped = this.lifecycle.dropped(method);
    if (dropped) {
      // `$/` notifications may be ignored anyway.
      if (!method.startsWith('$/')) this.log(`${method} ${dropped} dropped`);
      return;
    }
    const problem = checkParams(method, message.params);
    if (problem) {
      this.log(`${method} dropped: ${problem}`);
      return;
    }
    this.lifecycle.passed(method);
    pass(message as unknown as Message);
  }
}
