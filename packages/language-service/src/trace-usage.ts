/**
 * Trace-aware editing: what the accesses of downloaded traces say about each rule of the open
 * policy. The server feeds core's explain results into a `TraceUsage`; these functions turn it
 * into code lenses (how many accesses each rule decided, the hosts seen), `unnecessary` hints on
 * rules no access used, and the denials list of the `netpolicy/denials` request.
 */
import { escapeControl, escapeIcons, type ComponentMatch, type ExplainResult, type PolicyDocument, type SbomIndex } from '@netpolicy/core';
import { accessHost } from '@netpolicy/core/internal';
import { DiagnosticSeverity, DiagnosticTag, type CodeLens, type Command, type Diagnostic as LspDiagnostic, type Range } from 'vscode-languageserver-types';
import { SOURCE } from './diagnostics';
import { pointerRange } from './ranges';

const MAX_HOSTS = 5;
const MAX_DENIALS = 1000;

/**
 * The most trace observations one references request lists for a rule (the first ones, in the
 * order of the traces): clangd's `--limit-references` default. A rule that decided 150,000
 * accesses lists 1,000, and its lens says so.
 * @public
 */
export const MAX_TRACE_REFERENCES = 1000;

/**
 * How many traced accesses one rule decided, the first few hosts they went to, and where the
 * first `MAX_TRACE_REFERENCES` of them are: pairs (an index in the usage's `files`, the
 * observation's zero-based index in that file) in a typed array (no object per observation).
 * @public
 */
export interface RuleUsage {
  count: number;
  hosts: string[];
  /** `[file, index, file, index, ...]` for the first `min(count, MAX_TRACE_REFERENCES)` observations (the array may be longer). */
  observed: Uint32Array;
}

/**
 * A trace file whose observations were explained: its path and how many observations it has.
 * `stamp` is the server's fingerprint of the bytes read (to tell that the file is still the one evaluated).
 * @public
 */
export interface TraceFileRead {
  /** The trace file's path. */
  path: string;
  /** How many observations were explained from it. */
  observations: number;
  /** The server's fingerprint of its bytes (absent until it was read whole). */
  stamp?: string;
}

/**
 * One access of a trace that the open policy denies, with the nearest rule and the smallest fix: an item of `netpolicy/denials`.
 * @public
 */
export interface Denial {
  trace: string;
  sequence: number;
  protocol: string;
  destination: string;
  recorded: 'allow' | 'deny' | 'none';
  certain: boolean;
  /** The rule that came nearest (a pointer), and why it missed. */
  nearest: { rule: string; reason: string } | null;
  /** The smallest addition that allows it (explain's `{pointer, value}`). */
  fix: { pointer: string; value: unknown } | null;
  /** The SBOM components it fetched (with an SBOM beside the trace), strongest match first; absent otherwise. */
  components?: ComponentMatch[];
}

/**
 * What the configured traces say about the open policy: accesses per deciding rule, and the denials (bounded).
 * @public
 */
export interface TraceUsage {
  traces: string[];
  observations: number;
  /** Every trace file `addResult` was given, in order (`RuleUsage.observed` names them by their index here). */
  files: TraceFileRead[];
  /** By deciding rule: `/sources/0`, `/connections/1`, `preset:<name>`, `default`. */
  byRule: Map<string, RuleUsage>;
  denials: Denial[];
  /** Denials beyond those kept. */
  moreDenials: number;
  /** Traces that could not be read, with the reason. */
  errors: Array<{ trace: string; message: string }>;
  /**
   * Set on a usage carried to a later version of its policy (`carryUsage`): the rules (`/sources/N`,
   * `/connections/N`, `preset:NAME`) changed or added since the evaluation, whose accesses are not
   * known until the traces are evaluated again.
   */
  unevaluated?: ReadonlySet<string>;
}

/**
 * A usage with no trace read yet, for `addResult` to fill.
 * @public
 */
export function emptyUsage(): TraceUsage {
  return { traces: [], observations: 0, files: [], byRule: new Map(), denials: [], moreDenials: 0, errors: [] };
}

/** The host of a result: parsed from its access, never by splitting the destination text. */
function hostOf(r: ExplainResult): string {
  return r.access ? accessHost(r.access) : r.protocol;
}

/**
 * Adds one explained access of `trace` to the usage (bounded: at most a few hosts per rule and 1,000 denials).
 * @public
 */
export function addResult(usage: TraceUsage, trace: string, r: ExplainResult, sbom?: SbomIndex): void {
  usage.observations++;
  const { files } = usage;
  let file = files.length - 1;
  if (file < 0 || files[file].path !== trace) files.push({ path: trace, observations: 0 }), file++;
  files[file].observations++;
  if (r.model.verdict === 'none') return;
  const rule = r.model.rule ?? 'default';
  let u = usage.byRule.get(rule);
  if (!u) usage.byRule.set(rule, (u = { count: 0, hosts: [], observed: new Uint32Array(16) }));
  if (u.count < MAX_TRACE_REFERENCES) {
    if (2 * u.count + 2 > u.observed.length) {
      const grown = new Uint32Array(Math.min(2 * u.observed.length, 2 * MAX_TRACE_REFERENCES));
      grown.set(u.observed);
      u.observed = grown;
    }
    u.observed[2 * u.count] = file;
    u.observed[2 * u.count + 1] = r.index;
  }
  u.count++;
  const host = hostOf(r);
  if (u.hosts.length < MAX_HOSTS && !u.hosts.includes(host)) u.hosts.push(host);
  if (r.model.verdict === 'deny') {
    if (usage.denials.length >= MAX_DENIALS) { usage.moreDenials++; return; }
    usage.denials.push({
      trace, sequence: r.sequence, protocol: r.protocol, destination: r.destination, recorded: r.recorded.verdict, certain: r.model.certain,
      nearest: r.nearMiss ? { rule: r.nearMiss.rule, reason: r.nearMiss.reasons.map((x) => x.message).join('; ') } : null,
      fix: r.fix && r.fix.kind !== 'job' ? { pointer: r.fix.pointer, value: r.fix.value } : null,
    });
    if (sbom && r.access) {
      const o = r.observation as { remoteUrl?: unknown };
      const found = sbom.attribute(r.access, typeof o.remoteUrl === 'string' ? o.remoteUrl : undefined);
      if (found.length) usage.denials[usage.denials.length - 1].components = found.slice(0, 5);
    }
  }
}

/** A lens title: trace hosts are outside text (control and bidi characters escaped, `$(` shown as text, not as an icon). */
function lensTitle(u: RuleUsage | undefined, unevaluated = false): string {
  if (unevaluated) return 'changed since the traces were evaluated';
  if (!u) return 'no traced access used this rule';
  const hosts = u.hosts.map((h) => escapeIcons(escapeControl(h.length > 100 ? `${h.slice(0, 100)}…` : h))).join(', ') + (u.hosts.length >= MAX_HOSTS ? ', …' : '');
  const listed = u.count > MAX_TRACE_REFERENCES ? ` (first ${MAX_TRACE_REFERENCES.toLocaleString('en-US')} listed)` : '';
  return `${u.count} traced access${u.count === 1 ? '' : 'es'} decided here${listed}: ${hosts}`;
}

/**
 * A lens's command: `show` (a client-side command that lists the references at the lens, given
 * `[uri, position]`) when the client has one and there is something to list, else none (`''`: the
 * title alone, not clickable).
 */
function lensCommand(title: string, range: Range, u: RuleUsage | undefined, show: LensReferences | undefined): Command {
  return show && u ? { title, command: show.command, arguments: [show.uri, range.start] } : { title, command: '' };
}

/**
 * Clickable count lenses: the client-side command that shows the references at a position
 * (`netpolicy.showReferences` in the VS Code extension), and the document's URI.
 * @public
 */
export interface LensReferences {
  /** The client-side command a lens runs, with `[uri, position]`. */
  command: string;
  /** The policy document's URI. */
  uri: string;
}

/**
 * A lens on each source, connection and enabled preset with what the traces say about it; with
 * `show`, each lens of a rule that decided accesses opens their references.
 * @public
 */
export function traceCodeLenses(doc: PolicyDocument, usage: TraceUsage, show?: LensReferences): CodeLens[] {
  if (usage.traces.length === 0) return [];
  const out: CodeLens[] = [];
  const value = doc.value as Record<string, unknown> | undefined;
  for (const key of ['sources', 'connections'] as const) {
    const rules = value && Array.isArray(value[key]) ? (value[key] as unknown[]) : [];
    rules.forEach((_rule, i) => {
      const pointer = `/${key}/${i}`;
      const range = pointerRange(doc, pointer);
      const u = usage.byRule.get(pointer);
      if (range) out.push({ range, command: lensCommand(lensTitle(u, usage.unevaluated?.has(pointer)), range, u, show) });
    });
  }
  const presets = value && Array.isArray(value.presets) ? (value.presets as unknown[]) : [];
  presets.forEach((name, i) => {
    const range = pointerRange(doc, `/presets/${i}`);
    const u = typeof name === 'string' ? usage.byRule.get(`preset:${name}`) : undefined;
    if (range && typeof name === 'string') out.push({ range, command: lensCommand(lensTitle(u, usage.unevaluated?.has(`preset:${name}`)), range, u, show) });
  });
  const denied = usage.byRule.get('default');
  const range = pointerRange(doc, '/default', true) ?? pointerRange(doc, '');
  if (range && denied) out.push({ range: { start: range.start, end: range.start }, command: lensCommand(`default: ${lensTitle(denied)}`, range, denied, show) });
  return out;
}

/**
 * Hints (faded) on rules that no access of the traces used.
 * @public
 */
export function unusedRuleHints(doc: PolicyDocument, uri: string, usage: TraceUsage): LspDiagnostic[] {
  if (usage.traces.length === 0 || usage.observations === 0) return [];
  const out: LspDiagnostic[] = [];
  const value = doc.value as Record<string, unknown> | undefined;
  for (const key of ['sources', 'connections'] as const) {
    const rules = value && Array.isArray(value[key]) ? (value[key] as unknown[]) : [];
    rules.forEach((_rule, i) => {
      const pointer = `/${key}/${i}`;
      if (usage.byRule.has(pointer) || usage.unevaluated?.has(pointer)) return;
      const range = pointerRange(doc, pointer);
      if (!range) return;
      out.push({
        range, severity: DiagnosticSeverity.Hint, tags: [DiagnosticTag.Unnecessary], source: SOURCE, code: 'unused-in-traces',
        codeDescription: { href: 'https://github.com/netpolicy/netpolicy/blob/main/docs/editor.md#trace-aware-editing' },
        message: `No access in ${usage.traces.length === 1 ? 'the trace' : `the ${usage.traces.length} traces`} used this rule (${usage.observations} observations).`,
        data: { pointer, offset: 0, length: 0 },
      });
    });
  }
  return out;
}
