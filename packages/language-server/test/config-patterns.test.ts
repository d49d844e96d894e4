/**
 * Issue 21 item 12 in the editor: a `filePatterns` glob with too many `{}` alternatives is a
 * diagnostic on that pattern in netpolicy.config.json and a message naming its position; the other
 * patterns still say which files are policies.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientPerTest, fileUri } from './harness';

const client = clientPerTest();
const CONFIG = `{\n  "filePatterns": [\n    "policies/*.json",\n    "${'{a,b}'.repeat(9)}.json"\n  ]\n}\n`;

describe('filePatterns with too many {} alternatives', () => {
  it('is a diagnostic on the pattern; the other patterns still apply', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-'));
    writeFileSync(join(dir, 'netpolicy.config.json'), CONFIG);
    mkdirSync(join(dir, 'policies'));
    const c = await client({ rootUri: fileUri(dir) });
    const policy = fileUri(join(dir, 'policies', 'ci.json'));
    await c.open(policy, '{"default": "deny", "sources": [{"npm": {"urls": ["http://a.example"]}}]}', 1);
    expect((await c.diagnostics(policy, 1)).diagnostics.map((d) => d.code)).toEqual(['insecure-url']);
    expect(c.messages.map((m) => m.message).join('\n')).toMatch(/netpolicy\.config\.json:4:5: `filePatterns\.1`: the \{\} alternatives of .* make more than 256 patterns/);
    const configUri = fileUri(join(dir, 'netpolicy.config.json'));
    await c.open(configUri, CONFIG, 1);
    const published = (await c.diagnostics(configUri, 1)).diagnostics;
    expect(published.map((d) => [d.code, d.range.start.line, d.range.start.character, d.severity])).toEqual([['invalid-value', 3, 4, 1]]);
    expect(published[0].message).toContain('more than 256 patterns (the limit)');
  });
});
