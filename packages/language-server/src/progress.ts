/**
 * Server-initiated work done progress (LSP 3.17 `window/workDoneProgress/create`, `$/progress`)
 * for the long pieces of background work: trace evaluation and the workspace check. Only for a
 * client that says `window.workDoneProgress`; nothing is sent to another.
 *
 * Progress never holds the work up: `begin` returns at once, the token is asked for in the
 * background, and a client that refuses it (or never answers) gets no progress, from then on
 * none at all. The begin goes out once the client made the token (carrying the latest message),
 * and an end after it however short the work was: every begin has its end, on shutdown too
 * (`stop`). Reports are sent at most every PROGRESS_INTERVAL_MS per task, the latest one last (a
 * check of 100,000 files is a few hundred notifications, not 100,000). Messages are the server's
 * own words and numbers, no outside text.
 */
import { WorkDoneProgress, WorkDoneProgressCreateRequest, type Connection, type WorkDoneProgressBegin, type WorkDoneProgressEnd, type WorkDoneProgressReport } from 'vscode-languageserver';
import { quietly, type Session } from './session';

/** The least time between two reports of one task. */
export const PROGRESS_INTERVAL_MS = 200;

/** A piece of work shown to the person. */
export interface ProgressTask {
  /** What is done so far (`percentage`: 0 to 100; a smaller one than before is not shown). */
  report(message: string, percentage?: number): void;
  end(): void;
}

const NO_TASK: ProgressTask = { report() {}, end() {} };

export class Progress {
  private tokens = 0;
  /** Tasks whose begin was sent and whose end was not. */
  private readonly running = new Set<Task>();
  private refused = false;
  private stopped = false;

  constructor(private readonly connection: Connection, private readonly session: Session) {}

  /** Starts showing a piece of work (a task that shows nothing when the client cannot show progress). */
  begin(title: string): ProgressTask {
    if (!this.session.client.workDoneProgress || this.refused || this.stopped || this.session.shutDown) return NO_TASK;
    return new Task(this, this.connection, title, `netpolicy/progress/${++this.tokens}`);
  }

  /** Shutdown: every task shown is ended now, and nothing more begins. */
  stop(): void {
    this.stopped = true;
    for (const task of [...this.running]) task.end();
  }

  /** For Task: whether a begin may still go out. */
  get live(): boolean {
    return !this.stopped && !this.session.shutDown;
  }

  /** For Task. */
  began(task: Task): void {
    this.running.add(task);
  }

  /** For Task. */
  ended(task: Task): void {
    this.running.delete(task);
  }

  /** For Task: the client refused a token; no progress is asked of it again. */
  refusedBy(err: unknown): void {
    if (this.refused) return;
    this.refused = true;
    this.session.log(`no progress is shown: the client refused window/workDoneProgress/create (${err instanceof Error ? err.message : String(err)})`);
  }
}

class Task implements ProgressTask {
  private state: 'creating' | 'begun' | 'ended' = 'creating';
  private endAsked = false;
  private message: string | undefined;
  private percentage: number | undefined;
  private sent: { message?: string; percentage?: number } = {};
  private lastSent = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly owner: Progress, private readonly connection: Connection, private readonly title: string, private readonly token: string) {
    let request: Promise<unknown>;
    try {
      request = Promise.resolve(connection.sendRequest(WorkDoneProgressCreateRequest.type, { token }));
    } catch (err) {
      request = Promise.reject(err);
    }
    request.then(() => this.created(), (err) => {
      this.state = 'ended';
      owner.refusedBy(err);
    });
  }

  report(message: string, percentage?: number): void {
    if (this.state === 'ended' || this.endAsked) return;
    this.message = message;
    if (percentage !== undefined && Number.isFinite(percentage)) this.percentage = Math.max(this.percentage ?? 0, Math.min(100, Math.max(0, Math.floor(percentage))));
    // Before the token exists, the begin will carry the latest.
    if (this.state === 'begun') this.flushSoon();
  }

  end(): void {
    if (this.state === 'ended') return;
    if (this.state === 'creating') {
      this.endAsked = true;
      return;
    }
    this.state = 'ended';
    if (this.timer) clearTimeout(this.timer);
    this.owner.ended(this);
    // The end says the last count when the rate held it back (two traces done in 50 ms: "2 of 2 traces").
    const unsent = this.message !== undefined && this.message !== this.sent.message;
    this.send({ kind: 'end', ...(unsent ? { message: this.message } : {}) });
  }

  private created(): void {
    if (this.state !== 'creating') return;
    if (!this.owner.live) {
      // Shut down meanwhile: the token stays unused.
      this.state = 'ended';
      return;
    }
    this.state = 'begun';
    this.owner.began(this);
    this.sent = { message: this.message, percentage: this.percentage };
    this.lastSent = Date.now();
    this.send({ kind: 'begin', title: this.title, cancellable: false, ...this.sent });
    if (this.endAsked) this.end();
  }

  private flushSoon(): void {
    if (this.timer) return;
    const wait = this.lastSent + PROGRESS_INTERVAL_MS - Date.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.state !== 'begun' || (this.message === this.sent.message && this.percentage === this.sent.percentage)) return;
    this.sent = { message: this.message, percentage: this.percentage };
    this.lastSent = Date.now();
    this.send({ kind: 'report', ...this.sent });
  }

  private send(value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd): void {
    try {
      quietly(this.connection.sendProgress(WorkDoneProgress.type, this.token, value));
    } catch {
      // closed connection
    }
  }
}
