/**
 * What every handler does around its work: the lifecycle and params checks (the same rules as
 * the message gate, for a connection without one), cancellation, the parsed document of the
 * current version, and work in slices that lets the server read its other messages.
 */
import type { PolicyDocument } from '@netpolicy/core';
import { ErrorCodes, LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver';
import type { Documents } from './documents';
import { checkParams } from './params';
import type { Session } from './session';
import { SLICE_MS } from './slices';

export { SLICE_MS } from './slices';

export class Requests {
  constructor(private readonly session: Session, private readonly documents: Documents) {}

  /** Refuses a request before `initialize` and after `shutdown`; throws InvalidParams (-32602) naming what is wrong with its params (params.ts). */
  checked(method: string, params: unknown): void {
    this.session.alive(method);
    const problem = checkParams(method, params);
    if (problem) throw new ResponseError(ErrorCodes.InvalidParams, `${method}: ${problem}`);
  }

  /** Whether a notification's params will do; a malformed one is logged and ignored. */
  acceptNotification(method: string, params: unknown): boolean {
    const problem = checkParams(method, params);
    if (problem) this.session.log(`${method} ignored: ${problem}`, true);
    return problem === undefined;
  }

  /** A request handler over the current parsed policy; null/[] for other documents or a cancelled request. */
  withDoc<T>(what: string, method: string, params: unknown, token: CancellationToken | undefined, fallback: T, fn: (doc: PolicyDocument) => T): T {
    this.checked(method, params);
    const uri = (params as { textDocument: { uri: string } }).textDocument.uri;
    if (token?.isCancellationRequested) return fallback;
    return this.session.guard(what, fallback, () => {
      const doc = this.documents.parsed(uri);
      return doc ? fn(doc) : fallback;
    });
  }

  /**
   * `withDoc` for work done in slices (a generator that yields every few thousand tokens): after
   * SLICE_MS of work the server reads its other messages, then goes on unless the request was
   * cancelled (RequestCancelled) or the document changed or closed meanwhile (ContentModified).
   */
  async withDocSteps<T>(what: string, method: string, params: unknown, token: CancellationToken | undefined, fallback: T, steps: (doc: PolicyDocument) => Generator<void, T>): Promise<T> {
    this.checked(method, params);
    const uri = (params as { textDocument: { uri: string } }).textDocument.uri;
    if (token?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, `${what}: cancelled`);
    const { documents, session } = this;
    const version = documents.get(uri)?.version;
    const run = session.guard(what, undefined, () => {
      const doc = documents.parsed(uri);
      return doc ? steps(doc) : undefined;
    });
    if (!run) return fallback;
    let sliceStart = Date.now();
    for (;;) {
      let step: IteratorResult<void, T>;
      try {
        step = run.next();
      } catch (e) {
        if (e instanceof ResponseError) throw e;
        return session.guard(what, fallback, () => { throw e; });
      }
      if (step.done) return step.value;
      if (Date.now() - sliceStart < SLICE_MS) continue;
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (token?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, `${what}: cancelled`);
      if (session.shutDown || documents.get(uri)?.version !== version) throw new ResponseError(LSPErrorCodes.ContentModified, `${what}: the document changed before the answer was ready`);
      sliceStart = Date.now();
    }
  }
}
