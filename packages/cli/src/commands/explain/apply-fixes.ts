/**
 * `explain --apply`: writes the fixes of the denials into the policy file through core's
 * `denialFixEdits` (the function the language server uses too), keeping formatting and comments,
 * then tidies what the additions made redundant with core's `applyFixes`, so the result passes
 * `check --strict` when the policy did before. Prints the diff; writes atomically, and only over
 * the file as read (write-back.ts `writeBack`).
 */
import { applyEdits, applyFixes, denialFixEdits, parsePolicyDocument, validate, type Diagnostic, type DiagnosticCode, type Fix, type PolicyDocument, type PresetCatalog, type TextEdit } from '@netpolicy/core';
import { appendEdit } from '@netpolicy/core/internal';
import { readForWriteBack, writeBack, type Io } from '../../io';
import { unifiedDiff } from '../../report-output';

/** Collects the distinct fixes of a run's denials (a job repeats the same access many times). */
export class FixCollector {
  private readonly fixes = new Map<string, Fix>();

  add(fix: Fix | null | undefined): void {
    if (!fix) return;
    const key = JSON.stringify([fix.pointer.replace(/\/-$/, ''), fix.pointer.endsWith('/-') ? fix.value : (fix.value as unknown[])?.[0] ?? fix.value]);
    const known = this.fixes.get(key);
    if (!known) this.fixes.set(key, fix);
    else if (fix.note && !known.note) this.fixes.set(key, { ...known, note: fix.note });
  }

  get all(): Fix[] {
    return [...this.fixes.values()];
  }
}

/**
 * Applies `fixes` to the text one after the other (a later fix sees the earlier ones). A run of
 * appends to top-level lists that exist and are not empty is applied as one batch of edits
 * computed on one parse (each append goes after the one before, as it would one at a time); any
 * other fix is applied alone on a fresh parse. Parsing once per fix had made 2,000 denials' fixes
 * take 20 s (quadratic); `applyDenialFixesOneByOne` is that reference, held to this by a property test.
 */
export function applyDenialFixes(text: string, fileName: string, fixes: readonly Fix[]): { text: string; applied: Fix[] } {
  let current = text;
  const applied: Fix[] = [];
  for (let i = 0; i < fixes.length;) {
    const doc = parsePolicyDocument(current, { fileName });
    const batch = appendBatch(doc, fixes, i);
    if (batch) {
      current = applyEdits(current, batch.edits);
      applied.push(...batch.applied);
      i = batch.next;
      continue;
    }
    const edits = oneFixEdits(doc, fixes[i]);
    if (edits.length > 0) {
      current = applyEdits(current, edits);
      applied.push(fixes[i]);
    }
    i++;
  }
  return { text: current, applied };
}

/** The reference: every fix on a fresh parse of the text so far. */
export function applyDenialFixesOneByOne(text: string, fileName: string, fixes: readonly Fix[]): { text: string; applied: Fix[] } {
  let current = text;
  const applied: Fix[] = [];
  for (const fix of fixes) {
    const edits = oneFixEdits(parsePolicyDocument(current, { fileName }), fix);
    if (edits.length === 0) continue;
    current = applyEdits(current, edits);
    applied.push(fix);
  }
  return { text: current, applied };
}

/** `/sources` (create the list) when the list exists: an append. */
function asAppend(value: Record<string, unknown> | undefined, fix: Fix): Fix {
  const create = /^\/([^/]+)$/.exec(fix.pointer);
  return create && Array.isArray(value?.[create[1]]) && Array.isArray(fix.value) ? { ...fix, pointer: `/${create[1]}/-`, value: fix.value[0] } : fix;
}

/** The edits of one fix on `doc`: none when an append's value is already in its list. */
function oneFixEdits(doc: PolicyDocument, fix: Fix): TextEdit[] {
  const value = doc.value as Record<string, unknown> | undefined;
  const f = asAppend(value, fix);
  const list = /^\/([^/]+)\/-$/.exec(f.pointer);
  if (list && Array.isArray(value?.[list[1]]) && (value![list[1]] as unknown[]).some((x) => JSON.stringify(x) === JSON.stringify(f.value))) return [];
  return denialFixEdits(doc, f);
}

/**
 * From `fixes[start]`, the longest run of appends to top-level lists present and not empty, as one
 * edit per list on `doc` (core's `appendEdit`: the text the appends would insert one at a time).
 * Undefined when `fixes[start]` is not such an append.
 */
function appendBatch(doc: PolicyDocument, fixes: readonly Fix[], start: number): { edits: TextEdit[]; applied: Fix[]; next: number } | undefined {
  const value = doc.value as Record<string, unknown> | undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const lists = new Map<string, { seen: Set<string>; values: unknown[] }>();
  const applied: Fix[] = [];
  let k = start;
  for (; k < fixes.length; k++) {
    const fix = fixes[k];
    const f = asAppend(value, fix);
    const name = /^\/([^/~]+)\/-$/.exec(f.pointer)?.[1];
    const items = name === undefined ? undefined : value[name];
    if (name === undefined || !Array.isArray(items) || items.length === 0) break;
    let list = lists.get(name);
    if (!list) lists.set(name, (list = { seen: new Set(items.map((x) => JSON.stringify(x))), values: [] }));
    const json = JSON.stringify(f.value);
    if (list.seen.has(json)) continue; // already in the list: not applied (as one at a time)
    list.seen.add(json);
    list.values.push(f.value);
    applied.push(fix);
  }
  if (k === start) return undefined;
  const edits: TextEdit[] = [];
  for (const [name, list] of lists) {
    if (list.values.length === 0) continue;
    const edit = appendEdit(doc, `/${name}`, list.values);
    if (!edit) return undefined; // the tree disagrees with the value (a duplicate key): one at a time
    edits.push(edit);
  }
  return { edits, applied, next: k };
}

const key = (d: Diagnostic) => `${d.code} ${d.pointer}`;

/** `explain --apply` on a policy file. Returns the diagnostics of the written policy. */
export function applyToPolicyFile(path: string, fixes: readonly Fix[], options: { catalog: PresetCatalog; io: Io; diffToStdout: boolean }): Diagnostic[] {
  const { io } = options;
  // Read again (it may have been edited while the trace was explained): the fixes go into what is
  // there now, and the write happens only if the file is still that (else exit 2, nothing written).
  const snapshot = readForWriteBack(io.cwd, path, '--apply');
  const before = snapshot.text;
  const validateOptions = { fileName: path, catalog: options.catalog };
  const { text: added, applied } = applyDenialFixes(before, path, fixes);
  if (applied.length === 0) {
    io.stderr.write(`netpolicy explain: --apply: nothing to apply to ${path} (${fixes.length ? 'every fix is already in the policy' : 'no denial has a fix for the policy'})\n`);
    return validate(before, validateOptions).diagnostics;
  }
  // An added preset or rule can make an existing rule redundant (shadowed-rule, redundant-with-preset):
  // apply the fixes of the findings the additions introduced, and only those.
  const old = new Set(validate(before, validateOptions).diagnostics.map(key));
  const introduced = validate(added, validateOptions).diagnostics.filter((d) => !old.has(key(d)));
  const codes = new Set<DiagnosticCode>(introduced.map((d) => d.code));
  const tidied = codes.size ? applyFixes(added, { ...validateOptions, codes, maxRounds: 10 }) : { text: added, diagnostics: validate(added, validateOptions).diagnostics };
  if (tidied.text === before) {
    io.stderr.write(`netpolicy explain: --apply: nothing to apply to ${path} (the fixes are already in the policy)\n`);
    return tidied.diagnostics;
  }
  writeBack(io.cwd, path, snapshot, tidied.text);
  const diff = unifiedDiff(path, before, tidied.text);
  (options.diffToStdout ? io.stdout : io.stderr).write(diff);
  const notes = applied.filter((f) => f.note).map((f) => `  note: ${f.note}`);
  const errors = tidied.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = tidied.diagnostics.filter((d) => d.severity === 'warning').length;
  io.stderr.write([
    `netpolicy explain: applied ${applied.length} fix${applied.length === 1 ? '' : 'es'} to ${path}; it now has ${errors} error${errors === 1 ? '' : 's'} and ${warnings} warning${warnings === 1 ? '' : 's'} (netpolicy check --strict ${path})`,
    ...notes,
    '',
  ].join('\n'));
  return tidied.diagnostics;
}
