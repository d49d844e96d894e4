/**
 * The option names the docs show are the options the client takes (issue 31: the README told
 * browser users to pass `validateSbom: false`, an option that did not exist). The names are read
 * from docs/client.md's options tables, from every `new NetpolicyClient({...})` and every call's
 * options in the code blocks of client.md, api.md and the README, and from `name: value` code in
 * the prose of client.md and the README; the known names are CLIENT_OPTION_NAMES and CALL_OPTION_NAMES, the lists the
 * client checks options against (held to the types by `satisfies`).
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CALL_OPTION_NAMES, CLIENT_OPTION_NAMES } from '../src/options';

/** A doc; `prose`: whether its prose is about the client (api.md's is mostly about core: only its code is read). */
const read = (path: string, prose = true) => ({ path, prose, text: readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8') });
const clientDoc = read('docs/client.md');
const docs = [clientDoc, read('packages/client/README.md'), read('docs/api.md', false)];
const clientOptions = Object.keys(CLIENT_OPTION_NAMES);
const callOptions = Object.keys(CALL_OPTION_NAMES);
const CALLS = new Set(['getSbom', 'getNetworkTrace', 'findArtifact']);
/** Deprecated options (`@deprecated` in ClientOptions): taken, but named only in their own row of the table. */
const DEPRECATED = ['validateSbom'];
const current = (names: string[]) => names.filter((n) => !DEPRECATED.includes(n));

/**
 * `name: value` in prose code that is not an option of ours, and why: prose code of that form is
 * an option unless listed here.
 */
const NOT_OPTIONS: Record<string, string> = {
  Authorization: 'the HTTP header',
  redirect: "fetch's own option (`redirect: 'manual'`)",
  kind: "an error's member (`kind: 'redirect'`)",
};

interface Table { line: number; header: string[]; rows: string[][] }

/** The markdown outside fenced code blocks, and the code blocks, with the line each starts on. */
function split(text: string): { prose: { line: number; text: string }[]; code: { line: number; lang: string; text: string }[] } {
  const prose: { line: number; text: string }[] = [];
  const code: { line: number; lang: string; text: string }[] = [];
  let block: { line: number; lang: string; lines: string[] } | undefined;
  text.split('\n').forEach((line, i) => {
    const fence = /^\s*```(\w*)/.exec(line);
    if (fence && !block) block = { line: i + 1, lang: fence[1], lines: [] };
    else if (fence && block) { code.push({ line: block.line, lang: block.lang, text: block.lines.join('\n') }); block = undefined; }
    else if (block) block.lines.push(line);
    else prose.push({ line: i + 1, text: line });
  });
  return { prose, code };
}

const cells = (row: string) => row.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());

/** Every table: a run of lines starting with `|`, whose second line must be the delimiter row. */
function tables(text: string): Table[] {
  const found: Table[] = [];
  let run: { line: number; text: string }[] = [];
  const end = () => {
    if (run.length === 0) return;
    const [head, delimiter, ...rest] = run;
    // A run without its delimiter row is no table: markdown shows its lines as stray pipes.
    if (delimiter === undefined || !/^\|(\s*:?-+:?\s*\|)+\s*$/.test(delimiter.text.trim())) {
      throw new Error(`line ${head.line}: table rows with no header and delimiter row above them (a paragraph between rows ends a table)`);
    }
    const header = cells(head.text);
    for (const r of rest) if (cells(r.text).length !== header.length) throw new Error(`line ${r.line}: ${cells(r.text).length} cells in a table of ${header.length} columns`);
    found.push({ line: head.line, header, rows: rest.map((r) => cells(r.text)) });
    run = [];
  };
  for (const line of split(text).prose) {
    if (line.text.trimStart().startsWith('|')) run.push(line);
    else end();
  }
  end();
  return found;
}

/** The option names of a table: its first column's `name`s. */
const tableNames = (table: Table) => table.rows.map((r) => /^`([^`]+)`$/.exec(r[0])?.[1] ?? r[0]);

/** The keys of object literals passed to `new NetpolicyClient(...)` and, as the last argument, to a call. */
function codeNames(source: string): { client: string[]; call: string[] } {
  const file = ts.createSourceFile('block.ts', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const client: string[] = [];
  const call: string[] = [];
  const keys = (node: ts.Node | undefined) => node && ts.isObjectLiteralExpression(node)
    ? node.properties.flatMap((p) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? [p.name.text] : []))
    : [];
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && node.expression.getText(file) === 'NetpolicyClient') client.push(...keys(node.arguments?.[0]));
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && CALLS.has(node.expression.name.text)) call.push(...keys(node.arguments[1]));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { client, call };
}

describe('the options tables of docs/client.md', () => {
  const table = (first: string) => {
    const found = tables(clientDoc.text).filter((t) => t.header[0] === first);
    expect(found, `one table headed "${first}"`).toHaveLength(1);
    return found[0];
  };

  it('are tables: no rows after a paragraph, no row of the wrong width, in client.md and the README', () => {
    for (const doc of docs.filter((d) => d.prose)) expect(() => tables(doc.text), doc.path).not.toThrow();
    expect(() => tables('| A | B |\n|---|---|\n| `x` | 1 |\n\nA paragraph.\n| `y` | 2 |\n')).toThrow(/line 6: table rows with no header/);
  });

  it('name every option of ClientOptions, and only those', () => {
    expect(tableNames(table('Option')).sort()).toEqual([...clientOptions].sort());
  });

  it('name every option of CallOptions, and only those', () => {
    expect(tableNames(table('Call option')).sort()).toEqual([...callOptions].sort());
  });
});

describe.each(docs)('$path', ({ text, prose: readProse }) => {
  const { prose, code } = split(text);
  const blocks = code.filter((b) => /^(ts|js|typescript|javascript|mjs|cjs)$/.test(b.lang));

  it('passes only options the client takes in its code blocks', () => {
    for (const block of blocks) {
      const { client, call } = codeNames(block.text);
      for (const name of client) expect(current(clientOptions), `option \`${name}\` in the code block at line ${block.line}`).toContain(name);
      for (const name of call) expect(callOptions, `call option \`${name}\` in the code block at line ${block.line}`).toContain(name);
    }
  });

  it.runIf(readProse)('names only options the client takes as `name: value` in its prose', () => {
    for (const line of prose) {
      if (DEPRECATED.some((name) => line.text.startsWith(`| \`${name}\` |`))) continue;
      for (const [, name] of line.text.matchAll(/`([A-Za-z_$][\w$]*): [^`]*`/g)) {
        if (Object.hasOwn(NOT_OPTIONS, name)) continue;
        expect(current([...clientOptions, ...callOptions]), `\`${name}: ...\` at line ${line.line}`).toContain(name);
      }
    }
  });
});

it('knows the deprecated options as options', () => {
  for (const name of DEPRECATED) expect(clientOptions).toContain(name);
});

it('finds the options the docs show (the reader itself works)', () => {
  const { code } = split(clientDoc.text);
  const names = code.map((b) => codeNames(b.text));
  expect(new Set(names.flatMap((n) => n.client))).toEqual(new Set(['baseUrl', 'token', 'sbomValidator']));
  expect(names.flatMap((n) => n.call)).toEqual(['signal']);
  expect(codeNames('new NetpolicyClient({ baseUrl, validateSbm: false }); c.getSbom(s, { signl })')).toEqual({ client: ['baseUrl', 'validateSbm'], call: ['signl'] });
  expect([...'pass `validateSbom: false` or `kind: \'x\'`'.matchAll(/`([A-Za-z_$][\w$]*): [^`]*`/g)].map((m) => m[1])).toEqual(['validateSbom', 'kind']);
});
