/**
 * The open documents: their text (vscode-languageserver's TextDocuments), one parse and one
 * validation per version (the core diagnostics per settings generation), and what was published
 * (diagnostics-out.ts: published, or kept for the client's pulls).
 * Diagnostics are debounced and versioned: one complete publish per settled version, never a
 * stale one; work for a closed document is dropped. Traces are evaluated after a longer pause
 * (trace-evaluation.ts), and their usage kept per version.
 */
import { LineIndex, parsePolicyDocument, parseProjectConfig, reparsePolicyDocument, type Diagnostic, type PolicyDocument, type Position } from '@netpolicy/core';
import { carryScanStates, carryUsage, policyDiagnostics, toLspDiagnostic, unusedRuleHints, type TraceUsage } from '@netpolicy/language-service';
import { ErrorCodes, ResponseError, TextDocuments, type Connection, type Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { DiagnosticsOut } from './diagnostics-out';
import type { ServerHost } from './host';
import { TextChanges } from './text-changes';
import { PolicyTestFiles } from './policy-tests';
import type { Progress } from './progress';
import type { Session } from './session';
import { TRACE_DEBOUNCE_MS, evaluable, type TraceEvaluator } from './trace-evaluation';
import type { Workspace } from './workspace';

/**
 * Quiet time after an edit before validating (a burst of keystrokes is validated once).
 * @public
 */
export const DEBOUNCE_MS = 30;

interface Entry {
  version: number;
  doc?: PolicyDocument;
  core?: Diagnostic[];
  /** The settings generation `core` was computed under. */
  generation: number;
  timer?: ReturnType<typeof setTimeout>;
  traceTimer?: ReturnType<typeof setTimeout>;
  /** Trace usage, and the version it was computed for (undefined: to be evaluated again). */
  usage?: TraceUsage;
  usageVersion?: number;
  /** The policy value the usage was computed for, and the usage carried to the current version's (`usage()`). */
  usageValue?: unknown;
  carried?: { value: unknown; usage: TraceUsage };
  /** Bumped to cancel a running trace evaluation. */
  traceRun: number;
  /** When the last change arrived (ms). */
  lastChange: number;
}

/**
 * Positions from the TextDocument's own line offsets, which it updates incrementally with each
 * change: no new line index per version (~4 ms on a 2 MB policy).
 */
class DocumentLines extends LineIndex {
  constructor(private readonly td: TextDocument) {
    super(td.getText());
  }
  override positionAt(offset: number): Position {
    return this.td.positionAt(offset);
  }
  override offsetAt(position: Position): number {
    return this.td.offsetAt(position);
  }
}

export class Documents {
  private readonly changes = new TextChanges();
  readonly texts = new TextDocuments(this.changes.configuration);
  private readonly entries = new Map<string, Entry>();
  /** Documents whose last publish had diagnostics (a document that stops being a policy file gets them cleared). */
  private readonly publishedNonEmpty = new Set<string>();
  /** The open policy test files' evaluations (policy-tests.ts). */
  readonly tests: PolicyTestFiles;

  constructor(
    private readonly connection: Connection,
    private readonly host: ServerHost,
    private readonly session: Session,
    private readonly workspace: Workspace,
    private readonly traces: TraceEvaluator,
    /** Where diagnostics go: published, or kept for the client's pulls (diagnostics-out.ts). */
    private readonly out: DiagnosticsOut,
    private readonly progress: Progress,
  ) {
    this.tests = new PolicyTestFiles(host, session, workspace, () => this.texts.all());
  }

  /** Follows the client's documents: each opened or changed one is validated (at once, or after a burst of edits). */
  listen(): void {
    const { texts } = this;
    texts.onDidOpen((e) => this.schedule(e.document.uri, 0));
    texts.onDidChangeContent((e) => {
      // An isolated edit is validated at once; edits in a burst (less than DEBOUNCE_MS apart) wait for a pause.
      const entry = this.entryOf(e.document.uri);
      const now = Date.now();
      const burst = now - entry.lastChange < DEBOUNCE_MS;
      entry.lastChange = now;
      this.schedule(e.document.uri, burst ? DEBOUNCE_MS : 0);
    });
    texts.onDidClose((e) => this.closed(e.document.uri));
    texts.listen(this.connection);
  }

  get(uri: string): TextDocument | undefined {
    return this.texts.get(uri);
  }

  all(): TextDocument[] {
    return this.texts.all();
  }

  /**
   * The trace usage of a document, if its traces were evaluated: the last evaluation's, its rules
   * followed to where they are in the current version (`carryUsage`: after an edit that moves
   * rules, `/sources/3` is the rule it was; a rule changed since has no entry until the traces are
   * evaluated again, which the edit scheduled).
   */
  usage(uri: string): TraceUsage | undefined {
    const e = this.entries.get(uri);
    if (!e?.usage) return undefined;
    const value = this.parsed(uri)?.value;
    if (value === e.usageValue) return e.usage;
    if (e.carried && e.carried.value === value) return e.carried.usage;
    e.carried = { value, usage: carryUsage(e.usage, e.usageValue, value) };
    return e.carried.usage;
  }

  private entryOf(uri: string): Entry {
    let e = this.entries.get(uri);
    if (!e) this.entries.set(uri, (e = { version: -1, generation: -1, traceRun: 0, lastChange: 0 }));
    return e;
  }

  /** The parsed document of the current version (parsed once per version). */
  parsed(uri: string): PolicyDocument | undefined {
    const td = this.texts.get(uri);
    if (!td || !this.workspace.isPolicyUri(uri)) return undefined;
    const e = this.entryOf(uri);
    if (e.version !== td.version || !e.doc) {
      // An edit inside one rule since the last parse reparses that rule alone (core's reparse.ts).
      const change = this.changes.take(uri);
      const options = { fileName: this.host.uriToPath(uri) ?? uri, lineIndex: new DocumentLines(td) };
      e.doc = e.doc && change ? reparsePolicyDocument(e.doc, td.getText(), change, options) : parsePolicyDocument(td.getText(), options);
      // Hover's and completion's saved scan states move to the new version now, so that nothing
      // holds the previous version's text while this one is validated (location.ts).
      carryScanStates(e.doc);
      e.version = td.version;
      e.core = undefined;
    }
    return e.doc;
  }

  /** The core diagnostics of the current version under the current settings (computed once). */
  coreDiagnostics(uri: string): Diagnostic[] {
    const doc = this.parsed(uri);
    if (!doc) return [];
    const e = this.entryOf(uri);
    const { generation } = this.workspace;
    if (!e.core || e.generation !== generation) {
      e.core = policyDiagnostics(doc, this.workspace.folderOf(uri).service);
      e.generation = generation;
    }
    return e.core;
  }

  publish(uri: string): void {
    const td = this.texts.get(uri);
    if (!td) return;
    const { session, workspace, traces } = this;
    session.guard('validation', undefined, () => {
      if (workspace.isConfigUri(uri)) {
        const path = this.host.uriToPath(uri) ?? uri;
        const text = td.getText();
        const doc = parsePolicyDocument(text, { fileName: path, jsonc: true });
        const { config, diagnostics: found } = parseProjectConfig(text, path);
        const diagnostics = found.map((d) => toLspDiagnostic(doc, uri, d));
        diagnostics.push(...workspace.problems.configDiagnostics(doc, config));
        this.out.document(uri, td.version, diagnostics);
        return;
      }
      if (this.tests.isTestUri(uri)) return this.publishTests(td);
      const doc = this.parsed(uri);
      // The test files that test this policy run again.
      if (doc) this.policyFilesChanged([this.host.uriToPath(uri) ?? uri]);
      if (!doc) {
        // Not (or no longer) a policy file: nothing, or clear what an earlier publish left (a pull is answered: none).
        if (this.publishedNonEmpty.delete(uri) || this.out.pull) this.out.document(uri, td.version, []);
        return;
      }
      const e = this.entryOf(uri);
      const following = traces.followed(uri);
      traces.sayUnread(uri);
      if (!following && e.usage) {
        // No trace in force any more (settings cleared, workspace not trusted): no lens or hint from the last ones.
        e.usage = undefined;
        e.usageVersion = undefined;
        e.usageValue = e.carried = undefined;
        e.traceRun++;
        session.refreshViews();
      }
      const diagnostics: LspDiagnostic[] = this.coreDiagnostics(uri).map((d) => toLspDiagnostic(doc, uri, d));
      if (e.usage && e.usageVersion === td.version && !doc.syntaxFailed) diagnostics.push(...unusedRuleHints(doc, uri, e.usage));
      this.out.document(uri, td.version, diagnostics);
      if (diagnostics.length > 0) this.publishedNonEmpty.add(uri);
      else this.publishedNonEmpty.delete(uri);
      if (following && e.usageVersion !== td.version) this.scheduleTraces(uri);
    });
  }

  /** A test file's diagnostics once its tests ran (policy-tests.ts); dropped when a newer version or a close came first. */
  private publishTests(td: TextDocument): void {
    const { uri, version } = td;
    this.tests.evaluate(td).then((diagnostics) => {
      if (!diagnostics || this.session.shutDown || this.texts.get(uri)?.version !== version) return;
      this.out.document(uri, version, diagnostics);
      if (diagnostics.length > 0) this.publishedNonEmpty.add(uri);
      else this.publishedNonEmpty.delete(uri);
      this.session.refreshViews();
    }, (err) => this.session.log(`policy tests of ${uri}: ${err instanceof Error ? err.message : String(err)}`, true));
  }

  /** `netpolicy.server.runPolicyTests` (a test file's lens): its tests run again now. */
  runTests(uri: unknown): null {
    if (typeof uri !== 'string' || !this.texts.get(uri) || !this.tests.isTestUri(uri)) throw new ResponseError(ErrorCodes.InvalidParams, 'expected the URI of an open policy test file');
    this.schedule(uri, 0);
    return null;
  }

  /** Policy files changed (paths: edited, or changed on disk): the open test files bound to them, or beside them, run again. */
  policyFilesChanged(paths: readonly string[]): void {
    if (!this.session.settingsReady) return;
    const uris = new Set(paths.flatMap((p) => this.tests.boundTo(p)));
    for (const uri of uris) this.schedule(uri, 0);
  }

  schedule(uri: string, delay = DEBOUNCE_MS): void {
    // After shutdown nothing more is scheduled or sent.
    if (this.session.shutDown) return;
    const e = this.entryOf(uri);
    if (e.timer) clearTimeout(e.timer);
    e.timer = setTimeout(() => {
      e.timer = undefined;
      // Before the settings are known, nothing is published (applySettings schedules every document).
      if (this.session.settingsReady) this.publish(uri);
    }, delay);
  }

  private scheduleTraces(uri: string): void {
    if (this.session.shutDown) return;
    const e = this.entryOf(uri);
    if (e.traceTimer) clearTimeout(e.traceTimer);
    e.traceTimer = setTimeout(() => {
      e.traceTimer = undefined;
      void this.evaluateTraces(uri);
    }, TRACE_DEBOUNCE_MS);
  }

  /** Explains every configured trace against the current version; dropped when a newer version or a close comes first. */
  private async evaluateTraces(uri: string): Promise<void> {
    const td = this.texts.get(uri);
    const doc = this.parsed(uri);
    if (!td || !doc || !this.traces.available || !this.traces.followed(uri)) return;
    const e = this.entryOf(uri);
    const run = ++e.traceRun;
    const version = td.version;
    const stale = () => e.traceRun !== run || this.texts.get(uri)?.version !== version || this.entries.get(uri) !== e || !this.session.trusted;
    // A policy that is not valid is not evaluated (as `netpolicy explain`); lint findings, whatever their severity, do not stop it.
    if (!evaluable(doc, this.coreDiagnostics(uri))) return;
    const task = this.progress.begin('Evaluating traces');
    let usage: TraceUsage | undefined;
    try {
      usage = await this.traces.evaluate(uri, doc, stale, (done, total) => task.report(`${done} of ${total} traces`, (100 * done) / total));
    } finally {
      task.end();
    }
    if (!usage || stale()) return;
    e.usage = usage;
    e.usageVersion = version;
    e.usageValue = doc.value;
    e.carried = undefined;
    this.publish(uri);
    this.session.refreshViews();
  }

  /** Settings were applied: every document is validated again, its traces evaluated again. */
  settingsApplied(): void {
    for (const e of this.entries.values()) e.usageVersion = undefined;
    for (const td of this.texts.all()) this.schedule(td.uri, 0);
    // Inlay hint kinds may have been turned on or off (netpolicy.inlayHints.*).
    this.session.refreshViews();
  }

  /** Traces changed on disk: every policy document's traces are evaluated again. */
  tracesChanged(): void {
    for (const td of this.texts.all()) {
      const e = this.entries.get(td.uri);
      if (e) e.usageVersion = undefined;
      if (this.workspace.isPolicyUri(td.uri)) this.scheduleTraces(td.uri);
    }
  }

  /** The file problems changed: the project files on screen show the problems of the files they name. */
  republishConfigs(): void {
    if (this.session.settingsReady) for (const td of this.texts.all()) if (this.workspace.isConfigUri(td.uri)) this.schedule(td.uri, 0);
  }

  private closed(uri: string): void {
    this.changes.forget(uri);
    this.tests.forget(uri);
    const entry = this.entries.get(uri);
    if (entry) {
      if (entry.timer) clearTimeout(entry.timer);
      if (entry.traceTimer) clearTimeout(entry.traceTimer);
      entry.traceRun++;
      this.entries.delete(uri);
    }
    this.out.closed(uri, this.publishedNonEmpty.delete(uri));
    // With the last document closed, a server started with --expose-gc (the bench) collects at once,
    // so its memory can be compared with the baseline.
    if (this.entries.size === 0) (globalThis as { gc?: () => void }).gc?.();
  }

  /** Shutdown: every timer cleared, every trace evaluation given up, every entry dropped. */
  stop(): void {
    for (const e of this.entries.values()) {
      if (e.timer) clearTimeout(e.timer);
      if (e.traceTimer) clearTimeout(e.traceTimer);
      e.traceRun++;
    }
    this.entries.clear();
  }
}
