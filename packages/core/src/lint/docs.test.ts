/**
 * docs/diagnostics: one page per code with Avoid / Prefer / Why, indexed by the README; the Avoid
 * example of each page produces its code through `validate`, and the Prefer examples produce no diagnostic.
 */
import { describe, expect, test } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LINT_CODES, SCHEMA_CODES } from '../validate/types';
import { validate } from '../validate/validate';

const dir = fileURLToPath(new URL('../../../../docs/diagnostics/', import.meta.url));
const codes = [...SCHEMA_CODES, ...LINT_CODES];

function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) return '';
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

function blocks(markdown: string): Array<{ lang: string; code: string }> {
  return [...markdown.matchAll(/```(\w+)\n([\s\S]*?)\n```/g)].map((m) => ({ lang: m[1], code: m[2] }));
}

describe('docs/diagnostics', () => {
  test('the README indexes every code with its severity', () => {
    const readme = readFileSync(`${dir}README.md`, 'utf8');
    for (const code of SCHEMA_CODES) expect(readme).toContain(`| [\`${code}\`](${code}.md) | error |`);
    for (const code of LINT_CODES) expect(readme).toContain(`| [\`${code}\`](${code}.md) | warning |`);
  });

  test.each(codes)('%s: a page with What it means, Avoid, Prefer and Why', (code) => {
    const path = `${dir}${code}.md`;
    expect(existsSync(path)).toBe(true);
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith(`# \`${code}\``)).toBe(true);
    for (const h of ['What it means', 'Avoid', 'Prefer', 'Why']) expect(section(text, h).length).toBeGreaterThan(20);
    const severity = (LINT_CODES as readonly string[]).includes(code) ? 'warning' : 'error';
    expect(text).toContain(`**Severity:** ${severity}`);
  });

  test.each(codes)('%s: the Avoid example produces the code, the Prefer examples produce nothing', (code) => {
    const text = readFileSync(`${dir}${code}.md`, 'utf8');
    const avoid = blocks(section(text, 'Avoid'));
    const prefer = blocks(section(text, 'Prefer'));
    expect(avoid.length).toBeGreaterThan(0);
    expect(prefer.length).toBeGreaterThan(0);
    for (const { code: example } of avoid) {
      // Avoid examples of comment-not-allowed are about a strict .json file, whatever the fence says.
      const found = validate(example, { fileName: 'policy.json' }).diagnostics.map((d) => d.code);
      expect(found).toContain(code);
    }
    for (const { lang, code: example } of prefer) {
      const found = validate(example, { fileName: lang === 'jsonc' ? 'policy.jsonc' : 'policy.json' }).diagnostics.map((d) => `${d.code}: ${d.message}`);
      expect(found).toEqual([]);
    }
  });
});
