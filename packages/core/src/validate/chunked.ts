/**
 * `validateChunked(text, options)`: the diagnostics of `validate(text, options)`, IDENTICAL (codes,
 * pointers, ranges, messages, data, related, tags, order), without ever holding the parsed value of
 * every rule (issue 10 item 8). V8 objects of a million small rules take about four times the text
 * they come from, so a policy parsed whole needs six times its size before any check runs.
 *
 * The schema allows it: `sources` and `connections` have only `items` constraints, nothing is
 * required at the top level, and the validator runs with `allErrors`, so the whole document's
 * errors are those of its skeleton (the top level with both arrays empty) and those of each item,
 * found by the same policy validator on a policy of the batch's items alone (`{ "sources": [...] }`)
 * and moved to the items' real pointers.
 *
 * 1. One scan of the text finds the top-level members and the items of both arrays (string-aware),
 *    grouped in batches; the skeleton (the text with both arrays' insides cut out) is parsed whole.
 * 2. Each batch is `JSON.parse`d (`[` + its items + `]`), checked (duplicate keys by member count
 *    as parse.ts does, schema per item, the lint rules about one rule at a time; findings placed in
 *    the batch's own text), its rules' coverage keys counted, and dropped.
 * 3. Coverage (`duplicate-rule`, `shadowed-rule`, `redundant-with-preset`) compares rules, but a rule
 *    that shares no key with another rule or a preset takes no part (lint/coverage-keys.ts): keys are
 *    counted in constant memory, and the rules that share one are parsed again and kept, at their
 *    real indexes, in a thinned policy that lint's own coverage analysis reads (its pointers then
 *    come out right; it filters again among them).
 * 4. The other findings are placed in one scan of the text (locate-many.ts), and all sorted as
 *    validateDocument does.
 *
 * Anything that is not the expected shape (not plain JSON, comments, trailing commas, syntax
 * errors, a top level that is not an object, `sources` or `connections` not arrays, duplicate keys
 * outside the items, nesting too deep) falls back to `validate`: its diagnostics are then exact by
 * construction. Pure (no file access): the CLI uses it for large files.
 */
import type { ErrorObject } from 'ajv';
import { policyValidator } from '../generated/validators-policy';
import { defaultPresetCatalog, type PresetCatalog } from '../presets/catalog';
import { lint, PER_RULE_LINT_CODES } from '../lint/index';
import type { LintFinding } from '../lint/types';
import { KeyPass } from '../lint/coverage';
import type { CidrLengths } from '../lint/coverage-keys';
import { isObject, kindOf, type JsonObject } from '../lint/walk';
import { enabledPresets } from '../policy/rules-read';
import { forgetParsedCidrs } from '../formats/ip';
import { isJsoncFile, parsedText } from './document';
import { closingQuote, countMembers, MAX_DEPTH, parseDocument } from './parse';
import { locateMany, type RangeRequest } from './locate-many';
import { presetNameFindings, translateSchemaErrors, type SchemaFinding } from './schema-errors';
import { lintDiagnostic, schemaDiagnostic, validate, type ValidateOptions } from './validate';
import type { Diagnostic, LintCode, SeverityOptions } from './types';

/**
 * `validate`'s options, and the size of the batches `validateChunked` reads.
 * @public
 */
export interface ChunkedOptions extends ValidateOptions {
  /** Items per batch (default 256; a batch also ends after about 64 KiB of text: larger batches were promoted to the old generation). Tests force tiny batches. */
  batchItems?: number;
}

/**
 * What `validateChunked` returns: `validate`'s verdict and diagnostics, without the parsed value (never held whole).
 * @public
 */
export interface ChunkedResult {
  /** True when there is no error-severity diagnostic. */
  valid: boolean;
  diagnostics: Diagnostic[];
  /** True when the text was checked batch by batch; false when it was not the expected shape and `validate` ran. */
  batched: boolean;
}

const DEFAULT_BATCH_ITEMS = 256;
const BATCH_CHARS = 1 << 16;
const COVERAGE_CODES: readonly LintCode[] = ['duplicate-rule', 'shadowed-rule', 'redundant-with-preset'];

type ListKey = 'sources' | 'connections';

/** A run of consecutive items of one array: its text `[start, end)`, its items, their members (`:` outside strings). */
interface Batch { start: number; end: number; count: number; members: number; base: number }
interface List {
  key: ListKey; open: number; close: number; length: number; batches: Batch[];
  /** Of `connections`: a superset of its CIDRs' prefix lengths (every number after a `/` in a string). */
  prefixes?: Set<number>;
}

/** The text is not the shape batches are made of: `validate` decides. */
class Unsuitable extends Error {}
function unsuitable(): never {
  throw new Unsuitable('not the expected shape');
}

/**
 * The scan of step 1. Strings are skipped with `indexOf` (a quote is escaped when an odd run of
 * backslashes precedes it); nothing backtracks. What it cannot see (invalid literals, control
 * characters in strings, mismatched brackets) `JSON.parse` of the skeleton and of each batch refuses.
 */
class Scanner {
  /** Of the last `valueEnd`: members (`:` outside strings) and deepest nesting (0 for a scalar). */
  members = 0;
  depth = 0;
  /**
   * While the items of `connections` are scanned: every number written right after a `/` in a
   * string. A superset of the prefix lengths of its CIDRs, which coverage needs before it reads a rule.
   */
  private prefixes: Set<number> | undefined;
  private slashAt = -1;
  private backslashAt = -1;

  constructor(private readonly src: string, private readonly batchItems: number) {}

  /** Notes the numbers after each `/` of the string token `[start, end)` (decoded first when it holds an escape). */
  private notePrefixes(start: number, end: number): void {
    const s = this.src;
    if (this.backslashAt < start) this.backslashAt = indexOrEnd(s, '\\', start);
    if (this.backslashAt < end) {
      let decoded: unknown;
      try {
        decoded = JSON.parse(s.slice(start, end));
      } catch {
        return; // not a JSON string: the batch's parse refuses it
      }
      if (typeof decoded === 'string') for (let i = decoded.indexOf('/'); i >= 0; i = decoded.indexOf('/', i + 1)) this.notePrefix(decoded, i);
      return;
    }
    if (this.slashAt < start) this.slashAt = indexOrEnd(s, '/', start);
    for (; this.slashAt < end; this.slashAt = indexOrEnd(s, '/', this.slashAt + 1)) this.notePrefix(s, this.slashAt);
  }

  private notePrefix(text: string, slash: number): void {
    let value = 0, digits = 0;
    for (let k = slash + 1; k < text.length; k++, digits++) {
      const c = text.charCodeAt(k);
      if (c < 48 || c > 57) break;
      if (value <= 128) value = value * 10 + (c - 48);
    }
    if (digits > 0 && value <= 128) this.prefixes!.add(value);
  }

  ws(i: number): number {
    const s = this.src;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else return i;
    }
  }

  /** `i` at a `"`: the index after its closing quote. */
  stringEnd(i: number): number {
    const end = closingQuote(this.src, i);
    if (end < 0) return unsuitable();
    if (this.prefixes) this.notePrefixes(i, end + 1);
    return end + 1;
  }

  /** The end of the value starting at `i`; sets `members` and `depth`. */
  valueEnd(i: number): number {
    const s = this.src;
    const first = s.charCodeAt(i);
    this.members = 0;
    this.depth = 0;
    if (first === 34) return this.stringEnd(i);
    if (first !== 123 && first !== 91) {
      let j = i;
      for (; j < s.length; j++) {
        const c = s.charCodeAt(j);
        if (c === 44 || c === 93 || c === 125 || c === 32 || c === 10 || c === 13 || c === 9) break;
      }
      return j === i ? unsuitable() : j;
    }
    let depth = 0, max = 0, members = 0;
    for (let j = i; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === 34) j = this.stringEnd(j) - 1;
      else if (c === 58) members++;
      else if (c === 123 || c === 91) {
        if (++depth > max) max = depth;
      } else if ((c === 125 || c === 93) && --depth === 0) {
        this.members = members;
        this.depth = max;
        return j + 1;
      }
    }
    return unsuitable();
  }

  /** The items of the array whose `[` is at `open`, in batches. */
  list(key: ListKey, open: number): List {
    const prefixes = (this.prefixes = key === 'connections' ? new Set() : undefined);
    try {
      const list = this.items(key, open);
      list.prefixes = prefixes;
      return list;
    } finally {
      this.prefixes = undefined;
    }
  }

  private items(key: ListKey, open: number): List {
    const s = this.src;
    const list: List = { key, open, close: -1, length: 0, batches: [] };
    let i = this.ws(open + 1);
    if (s.charCodeAt(i) === 93) {
      list.close = i;
      return list;
    }
    let batch: Batch | undefined;
    for (;;) {
      const start = i;
      const end = this.valueEnd(i);
      // The root object and this array are two levels: the item's own nesting must fit below MAX_DEPTH.
      if (this.depth + 2 > MAX_DEPTH) unsuitable();
      if (batch === undefined) list.batches.push((batch = { start, end, count: 0, members: 0, base: list.length }));
      batch.end = end;
      batch.count++;
      batch.members += this.members;
      list.length++;
      if (batch.count >= this.batchItems || end - batch.start >= BATCH_CHARS) batch = undefined;
      i = this.ws(end);
      const c = s.charCodeAt(i);
      if (c === 44) i = this.ws(i + 1);
      else if (c === 93) {
        list.close = i;
        return list;
      } else unsuitable();
    }
  }

  /** The top level: an object whose `sources` and `connections` arrays are found (each at most once). */
  top(): List[] {
    const s = this.src;
    let i = this.ws(0);
    if (s.charCodeAt(i) !== 123) unsuitable();
    i = this.ws(i + 1);
    const lists: List[] = [];
    if (s.charCodeAt(i) !== 125) {
      for (;;) {
        if (s.charCodeAt(i) !== 34) unsuitable();
        const keyEnd = this.stringEnd(i);
        let key: unknown;
        try {
          key = JSON.parse(s.slice(i, keyEnd));
        } catch {
          unsuitable();
        }
        i = this.ws(keyEnd);
        if (s.charCodeAt(i) !== 58) unsuitable();
        i = this.ws(i + 1);
        if ((key === 'sources' || key === 'connections') && s.charCodeAt(i) === 91) {
          if (lists.some((l) => l.key === key)) unsuitable(); // a duplicate key: validate reports it
          const list = this.list(key, i);
          lists.push(list);
          i = list.close + 1;
        } else i = this.valueEnd(i);
        i = this.ws(i);
        const c = s.charCodeAt(i);
        if (c === 44) i = this.ws(i + 1);
        else if (c === 125) break;
        else unsuitable();
      }
    }
    if (this.ws(i + 1) !== s.length) unsuitable();
    return lists;
  }
}

function indexOrEnd(text: string, search: string, from: number): number {
  const i = text.indexOf(search, from);
  return i < 0 ? text.length : i;
}

function parseBatch(src: string, batch: Batch): unknown[] {
  let items: unknown;
  try {
    items = JSON.parse(`[${src.slice(batch.start, batch.end)}]`);
  } catch {
    unsuitable();
  }
  if (!Array.isArray(items) || items.length !== batch.count) unsuitable();
  return items;
}

/** `/<key>/<local index>...` of a finding on a batch -> `/<key>/<base + local index>...`. */
function shiftPointer(pointer: string, key: ListKey, base: number): string {
  const prefix = `/${key}/`;
  if (base === 0 || !pointer.startsWith(prefix)) return pointer;
  let end = prefix.length;
  while (end < pointer.length && pointer.charCodeAt(end) !== 47) end++;
  return `${prefix}${base + Number(pointer.slice(prefix.length, end))}${pointer.slice(end)}`;
}

/**
 * The errors of a policy of one batch's items alone, at the items' real pointers. Each is inside
 * an item (`/<key>/<index in the batch>/...`): anything else means the schema has changed under
 * this file's assumption (see the top), and the whole document is checked instead.
 */
function itemErrors(errors: readonly ErrorObject[], key: ListKey, base: number): ErrorObject[] {
  const prefix = `/${key}/`;
  return errors.map((e) => {
    if (!e.instancePath.startsWith(prefix) || e.instancePath.length === prefix.length) unsuitable();
    return base === 0 ? e : { ...e, instancePath: shiftPointer(e.instancePath, key, base) };
  });
}

/**
 * Diagnostics of `validate(text, options)`, computed batch by batch when the text allows it (see the top of this file).
 * @public
 */
export function validateChunked(text: string, options: ChunkedOptions = {}): ChunkedResult {
  let diagnostics: Diagnostic[];
  let batched = true;
  try {
    diagnostics = checkInBatches(text, options);
  } catch (error) {
    if (!(error instanceof Unsuitable)) throw error;
    diagnostics = validate(text, options).diagnostics;
    batched = false;
  }
  return { valid: !diagnostics.some((d) => d.severity === 'error'), diagnostics, batched };
}

function checkInBatches(text: string, options: ChunkedOptions): Diagnostic[] {
  const src = parsedText(text);
  const jsonc = options.jsonc ?? isJsoncFile(options.fileName);
  const scanner = new Scanner(src, Math.max(1, options.batchItems ?? DEFAULT_BATCH_ITEMS));
  const lists = scanner.top().sort((a, b) => a.open - b.open);
  if (lists.length === 0) unsuitable(); // nothing to batch: the whole document is its skeleton

  // The skeleton: the text with the inside of both arrays cut out, parsed whole (plain JSON, no duplicate key).
  let skeleton = '';
  let from = 0;
  for (const list of lists) {
    skeleton += src.slice(from, list.open + 1);
    from = list.close;
  }
  skeleton += src.slice(from);
  const parsed = parseDocument(skeleton, jsonc);
  skeleton = '';
  if (parsed.syntaxFailed || parsed.diagnostics.length > 0 || !isObject(parsed.value)) unsuitable();
  const root = parsed.value;

  const catalog = options.catalog ?? defaultPresetCatalog;
  const severity = options.severity ?? {};
  const runLint = options.lint !== false;
  const enabled = (code: LintCode) => runLint && severity[code] !== 'off';
  const perRuleEnabled = (code: LintCode) => PER_RULE_LINT_CODES.has(code) && enabled(code);
  const coverage = COVERAGE_CODES.some(enabled);

  const syntax: Diagnostic[] = [];
  const schema: SchemaFinding[] = policyValidator(root) ? [] : translateSchemaErrors(policyValidator.errors ?? [], root);
  /** Diagnostics of findings inside items, placed batch by batch. */
  const placed: Diagnostic[] = [];
  // Sources first, then connections (the order of lint's entries and of coverage, D4).
  const ordered = [...lists].sort((a, b) => (a.key === b.key ? 0 : a.key === 'sources' ? -1 : 1));
  const keys = coverage ? new CoverageKeys(ordered, root, catalog) : undefined;

  // Step 2: each batch once: duplicate keys, schema, per-rule lint, CIDR lengths.
  for (const list of ordered) {
    for (const batch of list.batches) {
      const items = parseBatch(src, batch);
      if (countMembers(items) !== batch.members) syntax.push(...duplicateKeys(src, scanner, list.key, batch, items, jsonc));
      const errors = policyValidator({ [list.key]: items }) ? undefined : itemErrors(policyValidator.errors ?? [], list.key, batch.base);
      // Findings inside the batch's items are placed in the batch's text (`[` + items + `]`, pointers
      // from the item's index in the batch): a million findings need no trie of a million pointers.
      const inBatch = new BatchFindings(list.key, batch.base);
      if (errors) {
        // The items at their real indexes, for the messages that quote a value.
        const holey: unknown[] = [];
        for (let j = 0; j < items.length; j++) holey[batch.base + j] = items[j];
        for (const f of translateSchemaErrors(errors, { [list.key]: holey })) inBatch.addSchema(f);
      }
      if (runLint) {
        for (const f of lint({ [list.key]: items }, { catalog, enabled: perRuleEnabled })) {
          f.pointer = shiftPointer(f.pointer, list.key, batch.base);
          if (f.related) f.related = f.related.map((r) => ({ ...r, pointer: shiftPointer(r.pointer, list.key, batch.base) }));
          inBatch.addLint(f, severity);
        }
        forgetParsedCidrs();
      }
      inBatch.place(src, batch, placed);
      if (keys) for (let j = 0; j < items.length; j++) keys.add(items[j], list.key === 'sources');
    }
  }
  for (const f of presetNameFindings(root, catalog)) schema.push(f);

  // Step 3: the rules that may take part in coverage, kept at their real indexes in a thinned policy.
  const thinned: JsonObject = root;
  const take = keys?.candidates();
  let offset = 0;
  for (const list of ordered) {
    const kept: unknown[] = [];
    if (take) {
      for (const batch of list.batches) {
        let any = false;
        for (let j = 0; j < batch.count && !any; j++) any = take[offset + batch.base + j] === 1;
        if (!any) continue;
        const items = parseBatch(src, batch);
        for (let j = 0; j < items.length; j++) if (take[offset + batch.base + j] === 1) kept[batch.base + j] = items[j];
      }
    }
    kept.length = list.length;
    thinned[list.key] = kept;
    offset += list.length;
  }
  const policyLevel = runLint ? lint(thinned, { catalog, enabled: (code) => !PER_RULE_LINT_CODES.has(code) && enabled(code) }) : [];

  // Step 4: as validateDocument: the other schema findings, then lint findings, placed in one scan.
  const found: Diagnostic[] = [];
  const requests: RangeRequest[] = [];
  for (const f of schema) {
    requests.push({ pointer: f.pointer, target: f.target });
    found.push(schemaDiagnostic(f));
  }
  for (const f of policyLevel) {
    const d = lintDiagnostic(f, severity);
    if (d === undefined) continue;
    requests.push({ pointer: f.pointer, target: f.target ?? 'value' });
    found.push(d);
  }
  const diagnostics = syntax.sort(byOffsetThenCode);
  if (found.length > 0) {
    const ranges = locateMany(src, requests);
    for (let i = 0; i < found.length; i++) {
      found[i].offset = ranges[i].offset;
      found[i].length = ranges[i].length;
      diagnostics.push(found[i]);
    }
  }
  // The final sort by offset orders them all; ties (one value, one code) keep the order of their kind.
  for (const d of placed) diagnostics.push(d);
  return diagnostics.sort(byOffsetThenCode);
}

/**
 * The findings inside the items of one batch (schema, then per-rule lint: their order in `validate`),
 * placed in the batch's own text: `[` + its items + `]`, where `/<list>/<base + j>/...` is `/<j>/...`
 * and every offset is `batch.start - 1` less. A pointer inside an item resolves there as in the whole
 * text (locate-many.ts falls back to an ancestor, and the item itself always exists).
 */
class BatchFindings {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly requests: RangeRequest[] = [];
  constructor(private readonly key: ListKey, private readonly base: number) {}

  private local(pointer: string): string {
    const prefix = `/${this.key}/`;
    let end = prefix.length;
    while (end < pointer.length && pointer.charCodeAt(end) !== 47) end++;
    return `/${Number(pointer.slice(prefix.length, end)) - this.base}${pointer.slice(end)}`;
  }

  addSchema(f: SchemaFinding): void {
    this.requests.push({ pointer: this.local(f.pointer), target: f.target });
    this.diagnostics.push(schemaDiagnostic(f));
  }

  addLint(f: LintFinding, severity: SeverityOptions): void {
    const d = lintDiagnostic(f, severity);
    if (d === undefined) return;
    this.requests.push({ pointer: this.local(f.pointer), target: f.target ?? 'value' });
    this.diagnostics.push(d);
  }

  place(src: string, batch: Batch, out: Diagnostic[]): void {
    if (this.diagnostics.length === 0) return;
    const ranges = locateMany(`[${src.slice(batch.start, batch.end)}]`, this.requests);
    for (let i = 0; i < this.diagnostics.length; i++) {
      const d = this.diagnostics[i];
      d.offset = ranges[i].offset + batch.start - 1;
      d.length = ranges[i].length;
      out.push(d);
    }
  }
}

function byOffsetThenCode(a: Diagnostic, b: Diagnostic): number {
  return a.offset - b.offset || a.code.localeCompare(b.code);
}

/**
 * `duplicate-key` in the items of a batch whose member count is above its parsed value's: each such
 * item is parsed alone by parse.ts (its pointers and offsets then moved to where the item sits).
 */
function duplicateKeys(src: string, scanner: Scanner, key: ListKey, batch: Batch, items: unknown[], jsonc: boolean): Diagnostic[] {
  const out: Diagnostic[] = [];
  let i = batch.start;
  for (let j = 0; j < items.length; j++) {
    const end = scanner.valueEnd(i);
    if (scanner.members !== countMembers(items[j])) {
      const prefix = `/${key}/${batch.base + j}`;
      for (const d of parseDocument(src.slice(i, end), jsonc).diagnostics) out.push({ ...d, offset: d.offset + i, pointer: prefix + d.pointer });
    }
    i = scanner.ws(end);
    if (src.charCodeAt(i) === 44) i = scanner.ws(i + 1);
  }
  return out;
}

/**
 * Which items may take part in coverage: lint/coverage.ts's `participants` first pass, a batch at a
 * time. Every rule's keys (hosts, host patterns and their parent wildcards, CIDR networks) are
 * counted in count-min sketches (the presets' too); a rule is a candidate when it shares a key with
 * another rule or a preset, or has no key at all. Items are numbered over both lists, sources first.
 *
 * A CIDR looks up the networks of every shorter prefix length some CIDR of the policy has, so the
 * lengths are needed before the first rule is read: the scan gives a superset of them (every number
 * after a `/` in a string of `connections`, decoded when escaped, and /32 and /128 for bare
 * addresses). More lengths only mean more lookups, so more candidates, never fewer; the analysis of
 * the thinned policy filters again among the candidates: a superset gives the whole policy's analysis.
 */
class CoverageKeys {
  private readonly pass: KeyPass;
  /** 1 for an item that is a walker entry (one recognised kind whose value is an object). */
  private readonly entry: Uint8Array;
  private next = 0;

  constructor(ordered: List[], root: JsonObject, catalog: PresetCatalog) {
    const n = ordered.reduce((sum, l) => sum + l.length, 0);
    // A superset of the prefix lengths of the policy's CIDRs, from the scan (and /32 and /128 for bare addresses).
    const lengths: CidrLengths = { 4: new Set([32]), 6: new Set([128]) };
    for (const list of ordered) {
      for (const length of list.prefixes ?? []) {
        if (length <= 32) lengths[4].add(length);
        lengths[6].add(length);
      }
    }
    // Sketches half the size lint's own pass takes (a sketch never counts too few): the refinement
    // of `candidates` removes what the extra collisions let through (pretty 200k rules: 8 MB less).
    this.pass = new KeyPass(n, lengths, enabledPresets(root, catalog), n);
    this.entry = new Uint8Array(n);
  }

  /** The next item (in the order of the numbering). */
  add(item: unknown, source: boolean): void {
    const e = this.next++;
    const kind = kindOf(item, source);
    if (kind !== undefined) this.entry[e] = 1;
    this.pass.add(source, kind, kind === undefined ? undefined : ((item as JsonObject)[kind] as JsonObject));
  }

  /**
   * 1 for each item that may take part. Sketches overcount (a third of a million rules' keys may
   * collide in them), and the kept rules are held in memory, so the count is refined: two rules that
   * share a key are both candidates, so counting the candidates' keys alone, in fresh sketches, still
   * finds every shared key, with fewer collisions. Repeated while it drops candidates (a few rounds).
   */
  candidates(): Uint8Array {
    const n = this.entry.length;
    const take = new Uint8Array(n);
    let count = 0;
    for (let e = 0; e < n; e++) if (this.entry[e] === 1) take[e] = 1, count++;
    for (let round = 0; round < 4; round++) {
      const kept = this.pass.filter(take, true);
      if (kept === count || kept === 0) break;
      count = kept;
      this.pass.recount((e) => take[e] === 1, count * 2);
    }
    return take;
  }
}
