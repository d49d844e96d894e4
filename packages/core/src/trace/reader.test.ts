import { describe, expect, it } from 'vitest';
import { parseTrace, readObservations, streamTrace } from './reader';
import { normaliseObservation, TraceError } from './normalise';
import type { AnyObservation } from './types';

const doc = {
  schema_version: '1.0',
  job: { provider: 'ciprovider', repository: 'acme/app', job_id: '18446744073709551615', run_id: '0', run_attempt: 1, workflow: '.ci/build.yml' },
  observations: [
    { protocol: 'dns', observed_at: '2026-01-01T00:00:00Z', sequence: 1, resolver_ip: '10.0.0.2', query_name: 'pypi.org', query_type: 'A', answers: ['151.101.0.223'] },
    { protocol: 'http', observedAt: '2026-01-01T00:00:01Z', sequence: 2, method: 'GET', url: 'https://pypi.org/simple/x/', remoteIp: '151.101.0.223', statusCode: 200, responseBodySize: '18446744073709551617', denied: false },
    { protocol: 'tcp', sequence: 3, allowed: false, remote_port: 443, remote_ip: '1.2.3.4', server_name: 'evil.example', alpn: ['h2'], bytes_sent: '9007199254740993', future_member: { x: [1, 2] } },
    { protocol: 'ssh_git', sequence: 4, allowed: true, host: 'github.com', port: 22, user: 'git', repository_path: '/acme/lib.git', git_service: 'git-upload-pack', forced_shallow: false },
  ],
};

describe('trace reader', () => {
  it('normalises snake_case and camelCase to one shape, keeps counters exact and unknown members', () => {
    const trace = parseTrace(JSON.stringify(doc));
    expect(trace.schemaVersion).toBe('1.0');
    expect(trace.job).toEqual({ provider: 'ciprovider', repository: 'acme/app', jobId: '18446744073709551615', runId: '0', runAttempt: 1, workflow: '.ci/build.yml' });
    expect(trace.observations).toHaveLength(4);
    expect(trace.observations[1]).toEqual({ index: 1, protocol: 'http', observedAt: '2026-01-01T00:00:01Z', sequence: 2, method: 'GET', url: 'https://pypi.org/simple/x/', remoteIp: '151.101.0.223', statusCode: 200, responseBodySize: '18446744073709551617', denied: false });
    expect(trace.observations[2]).toMatchObject({ protocol: 'tcp', remotePort: 443, serverName: 'evil.example', alpn: ['h2'], bytesSent: '9007199254740993', extra: { future_member: { x: [1, 2] } } });
    expect(trace.observations[3]).toMatchObject({ protocol: 'ssh_git', host: 'github.com', port: 22, repositoryPath: '/acme/lib.git', forcedShallow: false });
  });

  it('names the observation index and member on a wrong type', () => {
    const bad = structuredClone(doc) as any;
    bad.observations[2].remote_port = '443';
    expect(() => parseTrace(JSON.stringify(bad))).toThrowError(/observation 2 \(sequence 3\): `remote_port` must be an integer, got the string "443"/);
    try { parseTrace(JSON.stringify(bad)); } catch (e) {
      expect(e).toBeInstanceOf(TraceError);
      expect((e as TraceError).observationIndex).toBe(2);
      expect((e as TraceError).member).toBe('remote_port');
    }
    const counter = structuredClone(doc) as any;
    counter.observations[1].responseBodySize = 12;
    expect(() => parseTrace(JSON.stringify(counter))).toThrowError(/observation 1 .*`responseBodySize` must be a decimal string/);
    const missing = structuredClone(doc) as any;
    delete missing.observations[1].url;
    expect(() => parseTrace(JSON.stringify(missing))).toThrowError(/observation 1 .*missing member `url`/);
  });

  it('checks job identifiers as 64-bit decimal strings', () => {
    const bad = structuredClone(doc) as any;
    bad.job.job_id = '18446744073709551616';
    expect(() => parseTrace(JSON.stringify(bad))).toThrowError(/job_id/);
    bad.job.job_id = '007';
    expect(() => parseTrace(JSON.stringify(bad))).toThrowError(/leading zeros/);
  });

  it('skips a byte order mark and accepts CRLF line ends', () => {
    const t = parseTrace('\ufeff{\r\n"observations": [\r\n{"protocol": "dns"}\r\n]\r\n}\r\n');
    expect(t.observations).toEqual([{ index: 0, protocol: 'dns', sequence: 0 }]);
  });

  it('keeps unknown protocols and unknown top-level members without error', () => {
    const t = parseTrace('{"observations":[{"protocol":"quic","sequence":9,"x":1}],"extra_top":true}');
    expect(t.observations[0]).toEqual({ index: 0, protocol: 'quic', sequence: 9, extra: { x: 1 } });
    expect(t.extra).toEqual({ extra_top: true });
  });

  it('keeps a __proto__ member as data, never as a prototype', () => {
    const t = parseTrace('{"observations":[{"protocol":"dns","__proto__":{"polluted":true}}]}');
    const o = t.observations[0] as any;
    expect(Object.getPrototypeOf(o.extra)).toBe(Object.prototype);
    expect(o.extra.polluted).toBeUndefined();
    expect(Object.keys(o.extra)).toEqual(['__proto__']);
    expect(({} as any).polluted).toBeUndefined();
  });

  it('rejects deep nesting, truncation and a non-object document', () => {
    const deep = `{"observations":[{"protocol":"dns","x":${'['.repeat(100)}${']'.repeat(100)}}]}`;
    expect(() => parseTrace(deep)).toThrowError(/nesting deeper than 64/);
    expect(() => parseTrace(JSON.stringify(doc).slice(0, -20))).toThrowError(/ends before the document is complete/);
    expect(() => parseTrace('[]')).toThrowError(/JSON object/);
    expect(() => parseTrace('{"job":{}}')).toThrowError(/no `observations`/);
    expect(() => parseTrace('{"observations":[{"protocol":"dns"} {"protocol":"dns"}]}')).toThrowError(/expected `,`/);
    expect(() => parseTrace('{"observations":[{"protocol":"dns",}]}')).toThrowError(/observation 0/);
  });

  it('streams chunks of any size (strings and UTF-8 bytes split anywhere) to the same observations', async () => {
    const text = JSON.stringify({ ...doc, observations: [...doc.observations, { protocol: 'http', sequence: 5, url: 'https://ex.example/é"\\\\/"{[', method: 'GET' }] }, null, 1);
    const whole = parseTrace(text);
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      const bytes = new TextEncoder().encode(text);
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
      const seen: AnyObservation[] = [];
      const header = await streamTrace(chunks, (o) => seen.push(o));
      expect(seen).toEqual(whole.observations);
      expect(header.job).toEqual(whole.job);
      const strings: string[] = [];
      for (let i = 0; i < text.length; i += size) strings.push(text.slice(i, i + size));
      const iterated: AnyObservation[] = [];
      for await (const o of readObservations(strings)) iterated.push(o);
      expect(iterated).toEqual(whole.observations);
    }
  });
});

describe('normaliseObservation arrays', () => {
  it("copies a caller's arrays; the reader's own parse hands them over (owned)", () => {
    const raw = { protocol: 'tcp', remote_port: 443, hostnames: ['a.example'], alpn: ['h2'] };
    const copied = normaliseObservation(raw, 0) as { hostnames?: string[]; alpn?: string[] };
    expect(copied.hostnames).toEqual(['a.example']);
    expect(copied.hostnames).not.toBe(raw.hostnames);
    expect(copied.alpn).not.toBe(raw.alpn);
    const owned = normaliseObservation(raw, 0, true) as { hostnames?: string[] };
    expect(owned.hostnames).toBe(raw.hostnames);
    expect(owned).toEqual(copied);
  });
});
