/** Document links (issue 28 item 6): VS Code renders a link's tooltip as markdown, so only names with a page are linked, and inertly. */
import { describe, expect, it } from 'vitest';
import { parsePolicyDocument } from '@netpolicy/core';
import { findDocumentLinks } from '../src/index';

const payload = '\n\n![p](http://127.0.0.1:1/img.png)\n\n[Click to update](https://evil.example/u)';

describe('document links of hostile names', () => {
  it('links no preset name outside the built-in catalog, and no unknown severity key', () => {
    const policy = parsePolicyDocument(JSON.stringify({ default: 'deny', presets: [payload, 'npm'] }), { fileName: 'p.netpolicy.json' });
    const links = findDocumentLinks(policy);
    expect(links.map((l) => l.target)).toEqual(['https://github.com/netpolicy/netpolicy/blob/main/docs/presets.md#npm']);
    const config = parsePolicyDocument(JSON.stringify({ severity: { [payload]: 'off', 'broad-cidr': 'error' } }), { fileName: 'netpolicy.config.json', jsonc: true });
    expect(findDocumentLinks(config).map((l) => l.tooltip)).toEqual(['The `broad-cidr` rule']);
  });

  it('holds the name in a code span', () => {
    const policy = parsePolicyDocument(JSON.stringify({ presets: ['pypi'] }), { fileName: 'p.netpolicy.json' });
    expect(findDocumentLinks(policy)[0].tooltip).toBe('The `pypi` preset');
  });
});
