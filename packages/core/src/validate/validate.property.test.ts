import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { validate } from './validate';
import { cpuMs } from '../../../../test-support/cpu-time';

const fixture = readFileSync(new URL('../../../../fixtures/policies/every-kind.netpolicy.json', import.meta.url), 'utf8');

/** JSON values biased toward the policy's own vocabulary. */
const words = fc.constantFrom('default', 'presets', 'sources', 'connections', 'pypi', 'oci', 'git', 'tls', 'tcp', 'udp', 'icmp', 'urls', 'cidrs', 'ports', 'operations', 'https', 'ssh', 'host', 'port', '__proto__', 'constructor', 'repositoryPatterns', 'serverNamePatterns', 'hostPatterns', 'alpn', 'indexUrl', 'downloadUrl', 'baseUrl', 'purlNamespace');
const leaf = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom('https://a.example', '10.0.0.0/8', '::/0', '*.x.example', 'pull', 'deny', 'allow', 443, 'org/**'));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.oneof(words, fc.string()), tie('node'), { maxKeys: 5 })),
})).node;

describe('validate never crashes and finishes in bounded time', () => {
  it('on random documents in the policy vocabulary', () => {
    fc.assert(
      fc.property(value, (v) => {
        const { ms, result: r } = cpuMs(() => validate(JSON.stringify(v) ?? 'null'));
        expect(ms).toBeLessThan(2000); // CPU time: catches blow-ups, not a benchmark
        for (const d of r.diagnostics) {
          expect(d.offset).toBeGreaterThanOrEqual(0);
          expect(typeof d.message).toBe('string');
        }
      }),
      { numRuns: 400 },
    );
  });

  it('on mutated text of a valid policy (deleted, inserted, replaced characters)', () => {
    const mutation = fc.array(fc.record({ at: fc.nat(fixture.length), del: fc.nat(8), ins: fc.string({ maxLength: 4 }) }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(mutation, fc.boolean(), (edits, jsonc) => {
        let text = fixture;
        for (const e of edits) text = text.slice(0, e.at) + e.ins + text.slice(e.at + e.del);
        const r = validate(text, { fileName: jsonc ? 'p.jsonc' : 'p.json' });
        for (const d of r.diagnostics) {
          expect(d.offset + d.length).toBeLessThanOrEqual(text.length);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('on arbitrary text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => {
      validate(text);
    }), { numRuns: 300 });
  });
});
