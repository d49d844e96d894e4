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
 *
 * The scan is in chunked-scan.ts, the findings of one batch in chunked-batch.ts, the coverage keys
 * in chunked-coverage.ts; this module runs the steps.
 */
import { policyValidator } from '../generated/validators-policy';
import { defaultPresetCatalog } from '../presets/catalog';
import { lint, PER_RULE_LINT_CODES } from '../lint/index';
import { isObject, type JsonObject } from '../lint/walk';
import { forgetParsedCidrs } from '../formats/ip';
import { isJsoncFile, parsedText } from './document';
import { countMembers, parseDocument } from './parse';
import { locateMany, type RangeRequest } from './locate-many';
import { presetNameFindings, translateSchemaErrors, type SchemaFinding } from './schema-errors';
import { lintDiagnostic, schemaDiagnostic, validate, type ValidateOptions } from './validate';
import type { Diagnostic, LintCode } from './types';
import { parseBatch, Scanner, Unsuitable, unsuitable } from './chunked-scan';
import { BatchFindings, duplicateKeys, itemErrors, shiftPointer } from './chunked-batch';
import { CoverageKeys } from './chunked-coverage';

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
const COVERAGE_CODES: readonly LintCode[] = ['duplicate-rule', 'shadowed-rule', 'redundant-with-preset'];

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

function byOffsetThenCode(a: Diagnostic, b: Diagnostic): number {
  return a.offset - b.offset || a.code.localeCompare(b.code);
}
