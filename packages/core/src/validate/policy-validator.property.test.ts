// The precompiled policy validator is generated from the schema with its `$ref`s inlined
// (scripts/build/validators.mjs, inlineLocalRefs). The reference: Ajv compiling the schema as written (as netpolicy
// uses it: core's policySchema, without the published list of built-in preset names), with the same
// options and formats. Same verdict and the same errors in the same order (keyword, instance path,
// params, message, and whether the error is under an `anyOf`, the one thing schema-errors.ts reads
// of the schema path) on documents near and far from a valid policy.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';
import { policyValidator } from '../generated/validators';
import { ajvFormats } from '../formats/index';
import { policySchema as schema } from '../generated/data';

const fixture = JSON.parse(readFileSync(new URL('../../../../fixtures/policies/every-kind.netpolicy.json', import.meta.url), 'utf8'));
const reference = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, formats: ajvFormats }).compile(schema);

const shape = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map((e) => ({ keyword: e.keyword, instancePath: e.instancePath, params: e.params, message: e.message, anyOf: e.schemaPath.includes('anyOf') }));

/** Both validators on the value as JSON.parse gives it (plain objects, as every caller passes). */
function same(generated: unknown): void {
  const value = JSON.parse(JSON.stringify(generated) ?? 'null');
  const ok = policyValidator(value);
  const errors = shape(policyValidator.errors);
  expect(ok).toBe(reference(value));
  expect(errors).toEqual(shape(reference.errors));
}

const words = fc.constantFrom('default', 'presets', 'sources', 'connections', 'pypi', 'npm', 'oci', 'git', 'apt', 'cargo', 'tls', 'tcp', 'udp', 'icmp', 'urls', 'cidrs', 'ports', 'operations', 'https', 'ssh', 'host', 'port', 'user', '__proto__', 'repositoryPatterns', 'serverNamePatterns', 'hostPatterns', 'alpn', 'indexUrl', 'downloadUrl', 'baseUrl', 'purlNamespace', 'types');
const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer({ min: -5, max: 70000 }), fc.boolean(), fc.constant(null),
  fc.constantFrom('https://a.example', 'http://b.example/x', 'ftp://x', '10.0.0.0/8', '10.0.0.1/8', '::/0', '*.x.example', '-a.example', 'pull', 'push', 'deny', 'allow', 443, 22, 'org/**', 'h2'));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(words, tie('node'), { maxKeys: 4 })),
})).node;

/** The fixture with some values (found by a path of keys and indexes) replaced. */
function mutated(edits: Array<{ path: number[]; to: unknown }>): unknown {
  const copy = structuredClone(fixture);
  for (const { path, to } of edits) {
    let parent: any = copy;
    for (let i = 0; i < path.length; i++) {
      const keys = parent !== null && typeof parent === 'object' ? Object.keys(parent) : [];
      if (keys.length === 0) break;
      const key = keys[path[i] % keys.length];
      if (i === path.length - 1 || parent[key] === null || typeof parent[key] !== 'object') {
        parent[key] = to;
        break;
      }
      parent = parent[key];
    }
  }
  return copy;
}

describe('the inlined policy validator', () => {
  it('accepts the fixture, as the schema as written does', () => {
    same(fixture);
    expect(policyValidator(fixture)).toBe(true);
  });

  it('gives the errors of the schema as written, on edits of a valid policy', () => {
    const edit = fc.record({ path: fc.array(fc.nat(12), { minLength: 1, maxLength: 6 }), to: value });
    fc.assert(fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => same(mutated(edits))), { numRuns: 1500 });
  });

  it('gives the errors of the schema as written, on random documents in the policy vocabulary', () => {
    const policyLike = fc.record({
      default: value, presets: value,
      sources: fc.array(fc.dictionary(words, fc.dictionary(words, value, { maxKeys: 4 }), { minKeys: 0, maxKeys: 2 }), { maxLength: 4 }),
      connections: fc.array(fc.dictionary(words, fc.dictionary(words, value, { maxKeys: 4 }), { minKeys: 0, maxKeys: 2 }), { maxLength: 4 }),
    }, { requiredKeys: [] });
    fc.assert(fc.property(fc.oneof(value, policyLike), same), { numRuns: 1500 });
  });

  it('reports the same duplicate items (uniqueItems, found in linear time: json/duplicate-pair.ts)', () => {
    // Every array of the fixture gets copies of its own items, and now and then `{}` or `[]`, at any place.
    const arrays: unknown[][] = [];
    const collect = (v: unknown): void => {
      if (Array.isArray(v)) { arrays.push(v); v.forEach(collect); } else if (v !== null && typeof v === 'object') Object.values(v).forEach(collect);
    };
    collect(fixture);
    const copies = fc.array(fc.record({ array: fc.nat(), from: fc.nat(), to: fc.nat(), odd: fc.constantFrom(undefined, {}, [], { a: 1 }) }), { minLength: 1, maxLength: 6 });
    fc.assert(fc.property(copies, (list) => {
      const copy = structuredClone(fixture);
      const targets: unknown[][] = [];
      const gather = (v: unknown): void => {
        if (Array.isArray(v)) { targets.push(v); v.forEach(gather); } else if (v !== null && typeof v === 'object') Object.values(v).forEach(gather);
      };
      gather(copy);
      for (const { array, from, to, odd } of list) {
        const a = targets[array % targets.length];
        const item = odd !== undefined ? structuredClone(odd) : a.length > 0 ? structuredClone(a[from % a.length]) : 1;
        a.splice(to % (a.length + 1), 0, item);
      }
      same(copy);
    }), { numRuns: 1500 });
    expect(arrays.length).toBeGreaterThan(5);
  });
});
