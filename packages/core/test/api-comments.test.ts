// The public API of the four library packages (core, client, language-service, language-server:
// every entry their package.json `exports` name): each export has a TSDoc comment, and the API
// reference (docs/reference, TypeDoc, `npm run docs:api`) is in step with the exports; plus the
// checks of the walker both rely on (scripts/api-surface.mjs), on a small program of its own.
// One program for all four: the signature list must be printed as the generator prints it (the
// checker orders the members of a union by when it met their types, so the walk is the same walk).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, test } from 'vitest';
import { apiSurface, createApiProgram, signatureList } from '../../../scripts/api-surface.mjs';
import { compareReferences } from '../../../scripts/api-reference.mjs';
import { LIBRARY_ENTRIES } from '../../../scripts/package-types.mjs';

const root = new URL('../../../', import.meta.url).pathname;
const rows = apiSurface({ program: createApiProgram() });

test.each(Object.keys(LIBRARY_ENTRIES))('every export of @netpolicy/%s has a TSDoc comment (at its declaration or a re-export)', (pkg) => {
  const mine = rows.filter((r) => r.pkg === pkg);
  expect(mine.length).toBeGreaterThan(0);
  expect(mine.filter((r) => !r.documented).map((r) => `${r.specifier} ${r.name} (${r.kind}, ${r.where})`)).toEqual([]);
});

test('docs/reference/api-surface.txt lists the exports as they are (else: npm run docs:api)', () => {
  const committed = readFileSync(join(root, 'docs/reference/api-surface.txt'), 'utf8');
  expect(signatureList(rows).split('\n')).toEqual(committed.split('\n'));
});

describe('the export walker (scripts/api-surface.mjs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'netpolicy-api-surface-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The rows of a program made of `files` (name -> text), entry `index.ts`. */
  function surface(files: Record<string, string>) {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const file = join(dir, 'index.ts');
    const program = ts.createProgram({ rootNames: [file], options: { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022 } });
    return apiSurface({ entries: [{ pkg: 'fixture', entry: 'index', specifier: '@fixture', file }], program });
  }

  const files = {
    'a.ts': [
      '/** Documented at its declaration. */',
      'export const documented = 1;',
      'export const bare = 2;',
      '// A line comment is not TSDoc.',
      'export function lineCommented(): void {}',
      '/** @internal */',
      'export const tagOnly = 3;',
      '/** A class. */',
      'export class Shape { constructor(readonly sides: number) {} private secret = 1; area(): number { return 0; } }',
      'export interface Point { x: number }',
    ].join('\n'),
    'b.ts': [
      "export { bare as renamed } from './a';",
      "/** Documented where it is re-exported. */",
      "export { bare as documentedHere } from './a';",
      "/** A comment on a re-export of two names documents neither. */",
      "export { bare as first, bare as second } from './a';",
    ].join('\n'),
    'index.ts': [
      "export * from './b';",
      "export { documented, lineCommented, tagOnly, Shape, type Point } from './a';",
    ].join('\n'),
  };

  test('follows re-exports through every step and finds the comment at any of them', () => {
    const got = Object.fromEntries(surface(files).map((r) => [r.name, r.documented]));
    expect(got).toEqual({
      documented: true, documentedHere: true, Shape: true,
      renamed: false, first: false, second: false, lineCommented: false, tagOnly: false, Point: false,
    });
  });

  test('names each export with its kind and where it is declared', () => {
    const byName = new Map(surface(files).map((r) => [r.name, r]));
    expect(byName.get('renamed')).toMatchObject({ kind: 'const', where: expect.stringMatching(/a\.ts:3$/) });
    expect(byName.get('Shape')).toMatchObject({ kind: 'class', signature: '{ new (sides: number) => Shape; sides: number; area: () => number }' });
    expect(byName.get('Point')).toMatchObject({ kind: 'interface', signature: '{ x: number }' });
    expect(byName.get('lineCommented')).toMatchObject({ kind: 'function', signature: '() => void' });
  });

  test('a changed signature or comment changes the signature list; a changed function body does not', () => {
    const list = () => signatureList(surface(files));
    const before = list();
    files['a.ts'] = files['a.ts'].replace('export function lineCommented(): void {}', 'export function lineCommented(): void { void 0; }');
    expect(list()).toBe(before);
    files['a.ts'] = files['a.ts'].replace('export interface Point { x: number }', 'export interface Point { x: number; y: number }');
    const widened = list();
    expect(widened).not.toBe(before);
    files['a.ts'] = files['a.ts'].replace('/** A class. */', '/** A shape with sides. */');
    expect(list()).not.toBe(widened);
  });
});

test('compareReferences names the files missing, left over and differing', () => {
  const a = mkdtempSync(join(tmpdir(), 'netpolicy-ref-a-')), b = mkdtempSync(join(tmpdir(), 'netpolicy-ref-b-'));
  try {
    writeFileSync(join(a, 'same.md'), 'x'); writeFileSync(join(b, 'same.md'), 'x');
    writeFileSync(join(a, 'changed.md'), 'new'); writeFileSync(join(b, 'changed.md'), 'old');
    writeFileSync(join(a, 'added.md'), 'x');
    writeFileSync(join(b, 'removed.md'), 'x');
    expect(compareReferences(a, b)).toEqual({ added: ['added.md'], removed: ['removed.md'], changed: ['changed.md'] });
    expect(compareReferences(a, a)).toEqual({ added: [], removed: [], changed: [] });
  } finally {
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  }
});
