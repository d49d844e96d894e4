import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { policyValidator } from '../generated/validators';
import { ownKeyCount } from './own-key-count';

describe('ownKeyCount', () => {
  it('is Object.keys(o).length for any parsed JSON object, __proto__ and numeric keys included', () => {
    fc.assert(fc.property(fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString', '0', '1', 'length')), fc.jsonValue(), { maxKeys: 6 }), (dict) => {
      // JSON.parse makes `__proto__` an own data member, as a policy file does.
      const o = JSON.parse(JSON.stringify(dict)) as object;
      expect(ownKeyCount(o)).toBe(Object.keys(o).length);
    }));
  });

  it('counts own enumerable keys only (not inherited, not symbols, not non-enumerable)', () => {
    const base = { inherited: 1 };
    const o = Object.create(base) as Record<string | symbol, unknown>;
    o.own = 1;
    o[Symbol('s')] = 2;
    Object.defineProperty(o, 'hidden', { value: 3, enumerable: false });
    expect(ownKeyCount(o)).toBe(Object.keys(o).length);
    expect(ownKeyCount(o)).toBe(1);
    expect(ownKeyCount([7, 8, 9])).toBe(3);
  });

  it('the generated policy validator counts a rule\'s kinds with it, as Ajv would (min and max one)', () => {
    const keywords = (policy: unknown) => (policyValidator(policy), (policyValidator.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`));
    expect(keywords({ sources: [{}] })).toContain('/sources/0 minProperties');
    expect(keywords({ connections: [{ tcp: { cidrs: ['10.0.0.0/8'] } }, { tls: { cidrs: ['10.0.0.0/8'], ports: [443] }, tcp: { cidrs: ['10.0.0.0/8'] } }] })).toContain('/connections/1 maxProperties');
    expect(policyValidator({ sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }], connections: [{ tcp: { cidrs: ['10.0.0.0/8'] } }] })).toBe(true);
  });
});
