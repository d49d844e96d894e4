/**
 * docs/cli.md cannot drift from the parser: each command's option table, exit codes and examples
 * are generated from the definitions the parser and `--help` use (UPDATE_DOCS=1 rewrites them).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { docsBlock, type CommandSpec } from '../src/args';
import { spec as init } from '../src/commands/init';
import { spec as check } from '../src/commands/check';
import { spec as explain } from '../src/commands/explain';
import { spec as suggest } from '../src/commands/suggest';
import { spec as test } from '../src/commands/test';
import { spec as diff } from '../src/commands/diff';
import { spec as fetch } from '../src/commands/fetch';
import { spec as serve } from '../src/commands/serve';
import { repoRoot, runCli } from './run-cli';

const docPath = join(repoRoot, 'docs/cli.md');
const specs: CommandSpec[] = [init, check, explain, suggest, test, diff, fetch, serve];

describe('docs/cli.md', () => {
  it('has the generated options, exit codes and examples of every declared command', () => {
    let doc = readFileSync(docPath, 'utf8');
    const original = doc;
    for (const spec of specs) {
      const re = new RegExp(`<!-- options:${spec.name} -->\\n[\\s\\S]*?<!-- /options:${spec.name} -->`);
      expect(doc, `docs/cli.md lacks the markers of ${spec.name}`).toMatch(re);
      doc = doc.replace(re, () => `<!-- options:${spec.name} -->\n${docsBlock(spec)}\n<!-- /options:${spec.name} -->`);
    }
    if (process.env.UPDATE_DOCS === '1') writeFileSync(docPath, doc);
    else expect(original, 'docs/cli.md is out of date: run UPDATE_DOCS=1 npx vitest run packages/cli/test/docs.test.ts').toBe(doc);
  });

  it('has a section for every command of `netpolicy --help`', () => {
    const doc = readFileSync(docPath, 'utf8');
    const help = runCli(['--help']).stdout;
    const names = [...help.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]);
    expect(names).toEqual(['init', 'check', 'explain', 'suggest', 'test', 'diff', 'fetch', 'serve']);
    for (const name of names) expect(doc).toContain(`## \`netpolicy ${name}\``);
    expect(specs.map((s) => s.name).sort()).toEqual([...names].sort());
  });

  it('every exit code a command declares is in the table of exit codes', () => {
    const doc = readFileSync(docPath, 'utf8');
    const table = doc.slice(doc.indexOf('## Exit codes'), doc.indexOf('## Policy files'));
    for (const spec of specs) for (const [code] of spec.exitCodes) expect(table).toContain(`| ${code} |`);
  });

  it('user docs, the README and the CLI cite no file outside the repository (contracts.md, interface.md)', () => {
    const files = ['README.md', 'docs/cli.md', 'docs/policy-tests.md', 'docs/evaluation-model.md', 'docs/serve.md', 'docs/client.md', 'docs/diagnostics/README.md', 'docs/decisions.md', 'docs/config.md', 'docs/fetch.md', 'docs/trace-format.md'];
    for (const f of files) expect(readFileSync(join(repoRoot, f), 'utf8'), f).not.toMatch(/contracts\.md|interface\.md/);
    for (const name of ['init', 'check', 'explain', 'suggest', 'test', 'diff', 'fetch', 'serve']) {
      expect(runCli([name, '--help']).stdout, name).not.toMatch(/contracts\.md|interface\.md/);
    }
  });
});
