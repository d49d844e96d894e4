import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { camelOf, COMMON_MEMBERS, PROTOCOL_MEMBERS, REQUIRED_MEMBERS, type MemberType } from './fields';
import { fastObservation, normaliseGeneral, normaliseObservation, TraceError } from './normalise';

// The fast path of normaliseObservation (members written out per protocol) against the general
// path (every spelling, unknown members, errors): the same observation, or no answer and the
// general path decides.

/** A value of a member's type, or one of the values that break it (null, wrong types, bad decimals). */
function valueOf(type: MemberType, plain: boolean): fc.Arbitrary<unknown> {
  const good: Record<MemberType, fc.Arbitrary<unknown>> = {
    string: fc.string({ maxLength: 8 }),
    decimal: fc.bigInt({ min: 0n, max: 1n << 70n }).map(String),
    integer: fc.integer({ min: -5, max: 70000 }),
    boolean: fc.boolean(),
    strings: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
  };
  const bad = fc.constantFrom<unknown>(null, 1.5, 'x', '', '12a', 7, true, [], [1], {}, 2 ** 60, '1'.repeat(41));
  return plain ? fc.oneof({ weight: 5, arbitrary: good[type] }, { weight: 1, arbitrary: fc.constant(null) }) : fc.oneof({ weight: 3, arbitrary: good[type] }, { weight: 1, arbitrary: bad });
}

const protocols = Object.keys(PROTOCOL_MEMBERS);
/**
 * Observations as JSON.parse makes them (`__proto__` an own key among the others). Half are
 * plain (members in one spelling, snake_case or camelCase, of the right type or null, and perhaps
 * unknown members, which the fast path takes unless a required one is missing), half anything
 * (both spellings mixed, nulls, wrong types, unknown keys).
 */
const observation = fc.tuple(fc.oneof(fc.constantFrom(...protocols), fc.constantFrom('quic', 'HTTP', '')), fc.boolean(), fc.boolean()).chain(([protocol, plain, camelPlain]) => {
  const specs = [...COMMON_MEMBERS.filter(([snake]) => snake !== 'protocol'), ...(PROTOCOL_MEMBERS[protocol] ?? [])];
  const required = new Set(REQUIRED_MEMBERS[protocol] ?? []);
  const spellings = (snake: string) => plain
    ? (required.has(snake) ? ['snake', 'snake', 'snake', 'snake', 'snake', 'absent'] : ['absent', 'snake'])
    : ['absent', 'snake', 'camel', 'both'];
  const members = specs.map(([snake, type]) => fc.tuple(fc.constantFrom(...spellings(snake)), valueOf(type, plain), valueOf(type, plain))
    .map(([how, v, w]) => [snake, how, v, w] as const));
  const unknownKeys = fc.shuffledSubarray(['note', '__proto__', 'constructor', 'extra', 'remoteIP', 'hostNames'], { maxLength: 2 });
  return fc.tuple(fc.tuple(...members), unknownKeys, fc.constantFrom(0, 0, 0, 1, 2), fc.boolean()).map(([chosen, unknown, protocolHow, reverse]) => {
    const entries: [string, unknown][] = [];
    if (protocolHow === 0 || plain) entries.push(['protocol', protocol]);
    else if (protocolHow === 1) entries.push(['protocol', null]);
    for (const [snake, how, v, w] of chosen) {
      if (how === 'snake' && plain && camelPlain) { entries.push([camelOf(snake), v]); continue; }
      if (how === 'snake' || how === 'both') entries.push([snake, v]);
      if (how === 'camel' || how === 'both') entries.push([camelOf(snake), how === 'both' ? w : v]);
    }
    for (const key of unknown) entries.push([key, 1]);
    if (reverse) entries.reverse();
    return JSON.parse('{' + entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',') + '}') as Record<string, unknown>;
  });
});

function general(raw: Record<string, unknown>, index: number): unknown {
  try {
    return normaliseGeneral(raw, index, true);
  } catch (e) {
    if (e instanceof TraceError) return { error: e.message };
    throw e;
  }
}

describe('normaliseObservation fast path (property-based)', () => {
  it('gives exactly what the general path gives, or leaves the observation to it', () => {
    let fast = 0;
    let fastWithExtra = 0;
    let fastCamel = 0;
    fc.assert(fc.property(observation, fc.nat(1000), (raw, index) => {
      const expected = general(raw, index);
      const got = fastObservation(raw, index);
      if (got !== undefined) {
        fast++;
        if ('extra' in got) fastWithExtra++;
        if ('observedAt' in raw || 'remoteIp' in raw || 'queryName' in raw || 'repositoryPath' in raw) fastCamel++;
        expect(got).toStrictEqual(expected);
      }
      // Whichever path answers, the public function agrees with the general one.
      let whole: unknown;
      try { whole = normaliseObservation(raw, index, true); } catch (e) { whole = { error: (e as Error).message }; }
      expect(whole).toStrictEqual(expected);
    }), { numRuns: 3000 });
    // The generator reaches the fast path, not only the general one.
    expect(fast).toBeGreaterThan(400);
    expect(fastWithExtra).toBeGreaterThan(100);
    expect(fastCamel).toBeGreaterThan(100);
  });

  it('takes every well-formed observation of a known protocol, snake_case members only', () => {
    const wellFormed = fc.constantFrom(...protocols).chain((protocol) => {
      const specs = [...COMMON_MEMBERS.filter(([snake]) => snake !== 'protocol'), ...PROTOCOL_MEMBERS[protocol]];
      const required = new Set(REQUIRED_MEMBERS[protocol] ?? []);
      const good: Record<MemberType, fc.Arbitrary<unknown>> = {
        string: fc.string(), decimal: fc.bigInt({ min: 0n, max: 1n << 64n }).map(String), integer: fc.nat(), boolean: fc.boolean(), strings: fc.array(fc.string(), { maxLength: 3 }),
      };
      const record = Object.fromEntries(specs.map(([snake, type]) => [snake, good[type]]));
      return fc.record(record, { requiredKeys: [...required] }).map((r) => ({ protocol, ...r }));
    });
    fc.assert(fc.property(wellFormed, (raw) => {
      const got = fastObservation(raw, 3);
      expect(got).toBeDefined();
      expect(got).toStrictEqual(normaliseGeneral(raw, 3, true));
    }), { numRuns: 1000 });
  });
});
