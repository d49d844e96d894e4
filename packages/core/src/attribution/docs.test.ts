/** docs/attribution.md's table of URL forms: every example reads as the table says. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseUrl } from '../eval/url';
import { claimsOfSsh, claimsOfUrl, DEFAULT_REGISTRY_HOSTS, describeClaim } from './url-forms';
import type { Ecosystem } from './types';

const doc = readFileSync(join(__dirname, '../../../../docs/attribution.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Matching rules'), doc.indexOf('## Input'));
const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Ecosystem') && !l.startsWith('|---'))
  .map((l) => l.split(' | ').map((c) => c.replace(/^\| /, '').replace(/ \|$/, '')));
const hosts = new Map<Ecosystem, Set<string>>([...DEFAULT_REGISTRY_HOSTS].map(([k, v]) => [k, new Set(v)]));
const code = (cell: string) => /^`([^`]+)`$/.exec(cell)?.[1];

describe('docs/attribution.md', () => {
  it('has a row for every ecosystem', () => {
    expect([...new Set(rows.map((r) => r[0]))]).toEqual(['npm', 'PyPI', 'crates', 'Go', 'RubyGems', 'OCI', 'Alpine', 'Maven', 'Debian', 'git']);
  });

  for (const row of rows) {
    it(`${row[0]}: ${row[2]}`, () => {
      const example = code(row[2]);
      const reads = code(row[3]);
      expect([example, reads]).not.toContain(undefined);
      const ssh = /^ssh (?:[^@\s]+@)?([^:\s]+):\d+ (\S+)$/.exec(example!);
      let got: string[];
      if (ssh) got = claimsOfSsh(ssh[1], ssh[2], undefined).map(describeClaim);
      else {
        const u = parseUrl(example!);
        expect(u).toBeDefined();
        got = claimsOfUrl(u!, hosts).map(describeClaim);
      }
      expect(got).toContain(reads);
    });
  }
});
