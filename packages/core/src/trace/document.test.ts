// A trace document held as an object reads as its text does (issue 22.3): readTraceDocument is held
// to parseTrace, and a Trace the readers made is told apart from a document.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isNormalisedTrace, readTraceDocument, traceOf, type TraceDocument } from './document';
import { camelOf } from './fields';
import { TraceError } from './normalise';
import { parseTrace } from './reader';

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const observation = fc.oneof(
  fc.record({ protocol: fc.constant('http'), sequence: fc.nat(), observed_at: fc.constant('2026-01-01T00:00:00Z'), method: fc.constantFrom('GET', 'PUT'), url: text.map((s) => `http://h.example/${s}`), remote_ip: fc.ipV4(), denied: fc.boolean(), denied_reason: text, response_body_size: fc.bigInt({ min: 0n, max: 1n << 70n }).map(String), note: text }, { requiredKeys: ['protocol', 'url'] }),
  fc.record({ protocol: fc.constant('tcp'), sequence: fc.nat(), allowed: fc.boolean(), remote_port: fc.integer({ min: 1, max: 65535 }), remote_ip: fc.ipV4(), hostnames: fc.array(fc.domain(), { maxLength: 2 }), server_name: fc.domain(), alpn: fc.constant(['h2']), bytes_sent: fc.bigInt({ min: 0n, max: 1n << 64n }).map(String) }, { requiredKeys: ['protocol', 'remote_port'] }),
  fc.record({ protocol: fc.constant('dns'), sequence: fc.nat(), query_name: fc.domain(), query_type: fc.constant('A'), answers: fc.array(fc.ipV4(), { maxLength: 3 }) }, { requiredKeys: ['protocol'] }),
  fc.record({ protocol: fc.constant('ssh_git'), sequence: fc.nat(), allowed: fc.boolean(), host: fc.domain(), port: fc.integer({ min: 1, max: 65535 }), repository_path: text, exit_status: fc.nat(255) }, { requiredKeys: ['protocol', 'host', 'port'] }),
  fc.record({ protocol: fc.constant('quic'), sequence: fc.nat(), anything: text }),
);
const job = fc.record({ provider: fc.constant('ciprovider'), repository: fc.constant('acme/webapp'), job_id: fc.bigInt({ min: 0n, max: 1n << 63n }).map(String), run_attempt: fc.nat(5), status: fc.constant('success'), extra_member: text }, { requiredKeys: [] });
const wire = fc.record({ schema_version: fc.constant('1.0'), job, observations: fc.array(observation, { maxLength: 10 }), producer: text }, { requiredKeys: ['observations'] });

/** The same document with every wire name in camelCase (D1 accepts both spellings). */
function camelCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCase);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [camelOf(k), camelCase(v)]));
}

describe('readTraceDocument: a document as an object reads as its text does', () => {
  it('property: the same trace as parseTrace of its JSON text, snake_case or camelCase', () => {
    fc.assert(fc.property(wire, fc.boolean(), (doc, camel) => {
      const d = (camel ? camelCase(doc) : doc) as TraceDocument;
      const json = JSON.stringify(d);
      const before = structuredClone(d);
      expect(readTraceDocument(d)).toEqual(parseTrace(json));
      expect(traceOf(d)).toEqual(parseTrace(json));
      expect(d).toEqual(before); // the caller's object is not changed
    }), { numRuns: 300 });
  });

  it('property: a Trace the readers made is taken as it is; a document with observations or snake_case names is read', () => {
    fc.assert(fc.property(wire, (doc) => {
      const trace = parseTrace(JSON.stringify(doc));
      expect(isNormalisedTrace(trace)).toBe(true);
      expect(traceOf(trace)).toBe(trace);
      // Observations without the reader's index, or any snake_case wire name, mark a document.
      if (doc.observations.length > 0 || doc.schema_version !== undefined) expect(isNormalisedTrace(doc as TraceDocument)).toBe(false);
    }), { numRuns: 200 });
  });

  it('a member of the wrong type or a missing member: the TraceError of the text reader', () => {
    const bad = [
      { observations: [{ protocol: 'tcp', remote_port: '443' }] },
      { observations: [{ protocol: 'http', sequence: 3 }] },
      { observations: [{ protocol: 'dns', answers: [1] }] },
      { observations: [{ sequence: 1 }] },
      { observations: [null] },
      { job: { job_id: '007' }, observations: [] },
      { schema_version: 1, observations: [] },
      { observations: {} },
      { job: {} },
    ];
    for (const doc of bad) {
      let expected: unknown;
      try { parseTrace(JSON.stringify(doc)); } catch (e) { expected = e; }
      expect(expected, JSON.stringify(doc)).toBeInstanceOf(TraceError);
      let got: unknown;
      try { readTraceDocument(doc); } catch (e) { got = e; }
      expect(got, JSON.stringify(doc)).toBeInstanceOf(TraceError);
      const { message, observationIndex, member } = got as TraceError;
      const want = expected as TraceError;
      expect({ message, observationIndex, member }, JSON.stringify(doc)).toEqual({ message: want.message, observationIndex: want.observationIndex, member: want.member });
    }
    expect(() => readTraceDocument(null)).toThrowError(TraceError);
    expect(() => readTraceDocument([])).toThrowError(/must be an object/);
  });

  it('__proto__ members stay data', () => {
    const doc = JSON.parse('{"observations":[{"protocol":"dns","sequence":1,"__proto__":{"polluted":true}}],"__proto__":{"x":1}}');
    const t = readTraceDocument(doc);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(t.observations[0])).toBe(Object.prototype);
    expect(t).toEqual(parseTrace(JSON.stringify(doc)));
  });
});
