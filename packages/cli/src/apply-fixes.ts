/**
 * `explain --apply`: writes the fixes of the denials into the policy file through core's
 * `denialFixEdits` (the function the language server uses too), keeping formatting and comments,
 * then tidies what the additions made redundant with core's `applyFixes`, so the result passes
 * `check --strict` when the policy did before. Prints the diff; writes atomically, and only over
 * the file as read (io.ts `writeBack`).
 */
import { applyEdits, applyFixes, denialFixEdits, parsePolicyDocument, validate, type Diagnostic, type DiagnosticCode, type Fix, type PresetCatalog } from '@netpolicy/core';
import { readForWriteBack, writeBack, type Io } from './io';
import { unifiedDiff } from './report-output';

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

/** Applies `fixes` to the text one after the other (a later fix sees the earlier ones). */
export function applyDenialFixes(text: string, fileName: string, fixes: readonly Fix[]): { text: string; applied: Fix[] } {
  let current = text;
  const applied: Fix[] = [];
  for (const fix of fixes) {
    const doc = parsePolicyDocument(current, { fileName });
    const value = doc.value as Record<string, unknown> | undefined;
    let f: Fix = fix;
    // `/sources` (create the list) when an earlier fix already created it: append instead.
    const create = /^\/([^/]+)$/.exec(fix.pointer);
    if (create && Array.isArray(value?.[create[1]]) && Array.isArray(fix.value)) f = { ...fix, pointer: `/${create[1]}/-`, value: fix.value[0] };
    const list = /^\/([^/]+)\/-$/.exec(f.pointer);
    if (list && Array.isArray(value?.[list[1]]) && (value![list[1]] as unknown[]).some((x) => JSON.stringify(x) === JSON.stringify(f.value))) continue;
    const edits = denialFixEdits(doc, f);
    if (edits.length === 0) continue;
    current = applyEdits(current, edits);
    applied.push(fix);
  }
  return { text: current, applied };
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
