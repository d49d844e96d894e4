import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseTrace, streamTrace } from './reader';
import { TraceError } from './normalise';
import type { AnyObservation } from './types';
import { cpuMs } from '../../../../test-support/cpu-time';

const text = fc.string({ unit: 'grapheme', maxLength: 12 }); // includes multi-byte characters
const observation = fc.oneof(
  fc.record({ protocol: fc.constant('http'), sequence: fc.nat(), method: fc.constantFrom('GET', 'PUT'), url: text.map((s) => `https://h.example/${s}`), denied: fc.boolean(), response_body_size: fc.bigInt({ min: 0n, max: 1n << 70n }).map(String), note: text }),
  fc.record({ protocol: fc.constant('tcp'), sequence: fc.nat(), allowed: fc.boolean(), remote_port: fc.integer({ min: 1, max: 65535 }), remote_ip: fc.ipV4(), hostnames: fc.array(fc.domain(), { maxLength: 2 }), server_name: fc.domain(), bytes_sent: fc.bigInt({ min: 0n, max: 1n << 64n }).map(String) }),
  fc.record({ protocol: fc.constant('dns'), sequence: fc.nat(), query_name: fc.domain(), answers: fc.array(fc.ipV4(), { maxLength: 3 }) }),
  fc.record({ protocol: fc.constant('ssh_git'), sequence: fc.nat(), allowed: fc.boolean(), host: fc.domain(), port: fc.integer({ min: 1, max: 65535 }), repository_path: text }),
);
const trace = fc.record({ schema_version: fc.constant('1.0'), observations: fc.array(observation, { maxLength: 12 }) });

function chunksOf(s: string, cuts: number[]): Uint8Array[] {
  const bytes = new TextEncoder().encode(s);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of points) { out.push(bytes.subarray(at, p)); at = p; }
  out.push(bytes.subarray(at));
  return out;
}

describe('trace reader (property-based)', () => {
  it('any split into byte chunks, even inside strings and multi-byte characters, reads the same observations', async () => {
    await fc.assert(fc.asyncProperty(trace, fc.array(fc.nat(), { maxLength: 20 }), fc.boolean(), async (doc, cuts, pretty) => {
      const json = JSON.stringify(doc, null, pretty ? 2 : undefined);
      const whole = parseTrace(json).observations;
      const streamed: AnyObservation[] = [];
      await streamTrace(chunksOf(json, cuts), (o) => { streamed.push(o); });
      expect(streamed).toEqual(whole);
      expect(whole).toHaveLength(doc.observations.length);
      // 64-bit counters are kept digit for digit.
      doc.observations.forEach((o, i) => {
        if ('bytes_sent' in o) expect((whole[i] as { bytesSent?: string }).bytesSent).toBe(o.bytes_sent);
        if ('response_body_size' in o) expect((whole[i] as { responseBodySize?: string }).responseBodySize).toBe(o.response_body_size);
      });
    }), { numRuns: 200 });
  });

  it('batches of any length (down to one character: every observation left to the exact scanner) read the same observations', async () => {
    await fc.assert(fc.asyncProperty(trace, fc.array(fc.nat(), { maxLength: 6 }), fc.integer({ min: 1, max: 400 }), async (doc, cuts, batchLength) => {
      const json = JSON.stringify(doc);
      const streamed: AnyObservation[] = [];
      await streamTrace(chunksOf(json, cuts), (o) => { streamed.push(o); }, { batchLength });
      expect(streamed).toEqual(parseTrace(json).observations);
    }), { numRuns: 300 });
  });

  it('chunks of tens of KiB (a value cut by a boundary completed on the next chunk\'s head, or not: a value longer than the head) read the same observations', async () => {
    // Observations of very different lengths (some longer than the 16 KiB head), chunks of 33 to 120 KiB.
    const long = fc.record({ protocol: fc.constant('http'), sequence: fc.nat(), url: fc.constant('https://h.example/x'), note: fc.nat(40000).map((n) => 'é"\\{}[],'.repeat(1 + (n >> 3)).slice(0, n)) });
    const doc = fc.record({ schema_version: fc.constant('1.0'), observations: fc.array(fc.oneof(observation, long), { minLength: 50, maxLength: 300 }) });
    await fc.assert(fc.asyncProperty(doc, fc.array(fc.integer({ min: 33 * 1024, max: 120 * 1024 }), { minLength: 1, maxLength: 40 }), fc.boolean(), async (d, sizes, pretty) => {
      const json = JSON.stringify(d, null, pretty ? 1 : undefined);
      const chunks: string[] = [];
      for (let at = 0, k = 0; at < json.length; k++) { const n = sizes[k % sizes.length]; chunks.push(json.slice(at, at + n)); at += n; }
      const streamed: AnyObservation[] = [];
      await streamTrace(chunks, (o) => { streamed.push(o); });
      expect(streamed).toEqual(parseTrace(json).observations);
    }), { numRuns: 40 });
  });

  it('mutated documents either read or fail with a TraceError, quickly', () => {
    fc.assert(fc.property(trace, fc.array(fc.record({ at: fc.nat(), del: fc.nat(6), ins: fc.string({ maxLength: 3 }) }), { minLength: 1, maxLength: 3 }), (doc, edits) => {
      let s = JSON.stringify(doc);
      for (const e of edits) { const at = e.at % (s.length + 1); s = s.slice(0, at) + e.ins + s.slice(at + e.del); }
      const { ms } = cpuMs(() => {
        try {
          parseTrace(s);
        } catch (error) {
          expect(error).toBeInstanceOf(TraceError);
        }
      });
      expect(ms).toBeLessThan(1000); // CPU time: catches blow-ups, not a benchmark
    }), { numRuns: 400 });
  });

  it('__proto__ members are data, never prototypes', () => {
    const t = parseTrace('{"observations":[{"protocol":"dns","sequence":1,"__proto__":{"polluted":true},"answers":[]}]}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(t.observations[0])).toBe(Object.prototype);
  });

  it('deep nesting inside an observation is an error, not a stack overflow', () => {
    const deep = '{"observations":[{"protocol":"dns","x":' + '['.repeat(100000) + ']'.repeat(100000) + '}]}';
    expect(() => parseTrace(deep)).toThrowError(TraceError);
  });
});
