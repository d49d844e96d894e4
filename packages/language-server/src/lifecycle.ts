/**
 * The server's lifecycle, as LSP 3.17 states it ("Lifecycle Messages"), in one place.
 *
 * `Lifecycle`: the phases of one connection and what each says of a message.
 * - new: a request is ServerNotInitialized (-32002), a notification is dropped (but `exit`);
 * - running, from `initialize`: a second `initialize` is InvalidRequest (-32600);
 * - shut down, from `shutdown`: every request is InvalidRequest, every notification but `exit`
 *   is dropped; the work in flight was cancelled (handlers/lifecycle.ts);
 * - exited, from `exit`: nothing more is read; the process ends with `exitCode`, 0 after
 *   `shutdown` and 1 without it.
 * The message gate (message-gate.ts) holds one in front of vscode-languageserver; the session
 * (session.ts) holds one for a connection without a gate (an embedder's).
 *
 * `ProcessExit`: how the Node process ends (node.ts), whatever asked for it: `exit`, the end of
 * stdin, the node IPC channel closing, the client's process gone. The exit code is set, the work
 * in flight stopped, and the process ends as soon as libuv's thread pool has no request in flight
 * (`process.exit` joins the pool's threads: one parked in a blocking call, an `open` of a FIFO or
 * a hung network file system, would keep it alive for ever). Only a request still in flight after
 * EXIT_DRAIN_MS, a thread really stuck, makes it end by SIGKILL.
 */
import { ErrorCodes } from 'vscode-languageserver';

export type Phase = 'new' | 'running' | 'shutdown' | 'exited';

/** A request refused by the phase: its error, and a line for the log. */
export interface Refusal {
  code: number;
  message: string;
  log: string;
}

export class Lifecycle {
  private current: Phase = 'new';
  private shutdownSeen = false;

  get phase(): Phase {
    return this.current;
  }

  /** `initialize` was received. */
  get initialized(): boolean {
    return this.current !== 'new';
  }

  /** `shutdown` was received (and, maybe, `exit` since). */
  get shutDown(): boolean {
    return this.shutdownSeen;
  }

  /** The exit code `exit` ends the process with: 0 after `shutdown`, else 1. */
  get exitCode(): 0 | 1 {
    return this.shutdownSeen ? 0 : 1;
  }

  /** What the phase says of a request: undefined (it goes on) or its refusal. */
  refusal(method: string): Refusal | undefined {
    if (method === 'initialize' && this.current !== 'new') {
      return { code: ErrorCodes.InvalidRequest, message: 'initialize was already received: a server is initialized once', log: 'a second initialize refused' };
    }
    if (this.current === 'new' && method !== 'initialize') {
      return { code: ErrorCodes.ServerNotInitialized, message: `the server is not initialized: send initialize before ${method}`, log: `${method} before initialize refused` };
    }
    if (this.current === 'shutdown' || this.current === 'exited') {
      return { code: ErrorCodes.InvalidRequest, message: `the server is shut down: ${method} is refused (only exit is accepted)`, log: `${method} after shutdown refused` };
    }
    return undefined;
  }

  /** Why the phase drops a notification (undefined: it goes on). `$/` notifications may be ignored anyway. */
  dropped(method: string): string | undefined {
    if (this.current === 'exited') return 'after exit';
    if (method === 'exit' || this.current === 'running') return undefined;
    return this.current === 'new' ? 'before initialize' : 'after shutdown';
  }

  /** A message let through: `initialize`, `shutdown` and `exit` move the phase. */
  passed(method: string): void {
    if (method === 'initialize' && this.current === 'new') this.current = 'running';
    else if (method === 'shutdown' && this.current === 'running') {
      this.current = 'shutdown';
      this.shutdownSeen = true;
    } else if (method === 'exit') this.current = 'exited';
  }
}

/** How long the process waits, at exit, for the thread pool's requests in flight. */
export const EXIT_DRAIN_MS = 2000;
/** How often it looks (ms). */
const EXIT_POLL_MS = 5;
/**
 * How many times it looks, at least, before it gives up: time spent in other work (a busy event
 * loop on a loaded machine) is no time given to the requests, so the wall clock alone does not end it.
 */
const EXIT_MIN_LOOKS = 100;

/** The process as `ProcessExit` needs it (node.ts: `process`; tests: a fake). */
export interface ProcessControl {
  /** Ends the process with `code` (joining the pool's threads). */
  exit(code: number): void;
  /** Ends the process at once, whatever its threads are doing (SIGKILL). */
  kill(): void;
  /** Whether requests of libuv's thread pool are in flight. */
  poolBusy(): boolean;
  /** The code the process ends with if its event loop empties first. */
  setExitCode(code: number): void;
  setTimeout(fn: () => void, ms: number): unknown;
  now(): number;
  log(message: string): void;
}

/** Names of `process.getActiveResourcesInfo()` that are requests of libuv's thread pool (file system, DNS lookups). */
export function isPoolRequest(resource: string): boolean {
  return /^FSReq|^FileHandleCloseReq$|ReqWrap$/.test(resource);
}

export class ProcessExit {
  private code: number | undefined;

  /** `stopWork`: cancels the server's work in flight (timers, evaluations, the workspace check). */
  constructor(private readonly control: ProcessControl, private readonly stopWork: () => void) {}

  /** The code the process is ending with, once `exit` was called. */
  get exiting(): number | undefined {
    return this.code;
  }

  /** Ends the process with `code`. The first call decides; later ones (the end of stdin after `exit`) change nothing. */
  exit(code: number): void {
    if (this.code !== undefined) return;
    this.code = code;
    this.control.setExitCode(code);
    try {
      this.stopWork();
    } catch (err) {
      this.control.log(`stopping the work in flight failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const deadline = this.control.now() + EXIT_DRAIN_MS;
    let looks = 0;
    const attempt = () => {
      if (!this.control.poolBusy()) {
        this.control.exit(code);
        return;
      }
      if (++looks < EXIT_MIN_LOOKS || this.control.now() < deadline) {
        this.control.setTimeout(attempt, EXIT_POLL_MS);
        return;
      }
      this.control.log(`a file system request is still in flight after ${EXIT_DRAIN_MS} ms (a thread blocked on a FIFO or a hung file system): the process ends by SIGKILL`);
      this.control.kill();
    };
    attempt();
  }
}
