/**
 * The server's lifecycle, as LSP 3.17 states it ("Lifecycle Messages"), in one place: the phases
 * of one connection and what each says of a message.
 * - new: a request is ServerNotInitialized (-32002), a notification is dropped (but `exit`);
 * - running, from `initialize`: a second `initialize` is InvalidRequest (-32600);
 * - shut down, from `shutdown`: every request is InvalidRequest, every notification but `exit`
 *   is dropped; the process ends with `exitCode`, 0 after `shutdown` and 1 without it.
 * The message gate (message-gate.ts) holds one in front of vscode-languageserver; the session
 * (session.ts) holds one for a connection without a gate (an embedder's).
 */
import { ErrorCodes } from 'vscode-languageserver';

export type Phase = 'new' | 'running' | 'shutdown';

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

  /** `shutdown` was received. */
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
    if (this.current === 'shutdown') {
      return { code: ErrorCodes.InvalidRequest, message: `the server is shut down: ${method} is refused (only exit is accepted)`, log: `${method} after shutdown refused` };
    }
    return undefined;
  }

  /** Why the phase drops a notification (undefined: it goes on). `$/` notifications may be ignored anyway. */
  dropped(method: string): string | undefined {
    if (method === 'exit' || this.current === 'running') return undefined;
    return this.current === 'new' ? 'before initialize' : 'after shutdown';
  }

  /** A message let through: `initialize` and `shutdown` move the phase. */
  passed(method: string): void {
    if (method === 'initialize' && this.current === 'new') this.current = 'running';
    else if (method === 'shutdown' && this.current === 'running') {
      this.current = 'shutdown';
      this.shutdownSeen = true;
    }
  }
}
