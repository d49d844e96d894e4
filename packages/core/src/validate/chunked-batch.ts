/**
 * The findings of `validateChunked` (chunked.ts, step 2) inside one batch's items: schema errors of
 * a policy of the batch alone moved to the items' real pointers, duplicate keys found by parsing an
 * item again, and every finding placed in the batch's own text, so that a million findings need no
 * trie of a million pointers.
 */
import type { ErrorObject } from 'ajv';
import type { LintFinding } from '../lint/types';
import { countMembers, parseDocument } from './parse';
import { locateMany, type RangeRequest } from './locate-many';
import type { SchemaFinding } from './schema-errors';
import { lintDiagnostic, schemaDiagnostic } from './validate';
import type { Diagnostic, SeverityOptions } from './types';
import { unsuitable, type Batch, type ListKey, type Scanner } from './chunked-scan';

/** `/<key>/<local index>...` of a finding on a batch -> `/<key>/<base + local index>...`. */
export function shiftPointer(pointer: string, key: ListKey, base: number): string {
  const prefix = `/${key}/`;
  if (base === 0 || !pointer.startsWith(prefix)) return pointer;
  let end = prefix.length;
  while (end < pointer.length && pointer.charCodeAt(end) !== 47) end++;
  return `${prefix}${base + Number(pointer.slice(prefix.length, end))}${pointer.slice(end)}`;
}

/**
 * The errors of a policy of one batch's items alone, at the items' real pointers. Each is inside
 * an item (`/<key>/<index in the batch>/...`): anything else means the schema has changed under
 * chunked.ts's assumption (see its top), and the whole document is checked instead.
 */
export function itemErrors(errors: readonly ErrorObject[], key: ListKey, base: number): ErrorObject[] {
  const prefix = `/${key}/`;
  return errors.map((e) => {
    if (!e.instancePath.startsWith(prefix) || e.instancePath.length === prefix.length) unsuitable();
    return base === 0 ? e : { ...e, instancePath: shiftPointer(e.instancePath, key, base) };
  });
}

/**
 * The findings inside the items of one batch (schema, then per-rule lint: their order in `validate`),
 * placed in the batch's own text: `[` + its items + `]`, where `/<list>/<base + j>/...` is `/<j>/...`
 * and every offset is `batch.start - 1` less. A pointer inside an item resolves there as in the whole
 * text (locate-many.ts falls back to an ancestor, and the item itself always exists).
 */
export class BatchFindings {
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

/**
 * `duplicate-key` in the items of a batch whose member count is above its parsed value's: each such
 * item is parsed alone by parse.ts (its pointers and offsets then moved to where the item sits).
 */
export function duplicateKeys(src: string, scanner: Scanner, key: ListKey, batch: Batch, items: unknown[], jsonc: boolean): Diagnostic[] {
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
