/** `netpolicy fetch` as a process: each exit code, atomic --output, the token never printed. */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, exited, root, run, spawnServe, type Run } from './fetch-cli-helpers';
import { json, minimalTrace, problem, startFaultServer, type FaultServer } from './client-fault-server';

const TOKEN = 'demo-token-valid';
const FAULT_TOKEN = 'fault-token-9f8e7d6c';
const INDEX = '868dfb80e04fb9a480e2bec30e6fef3d460f55877acf9c210e3bd2ac49b79c11';
let serve: { child: ChildProcess; url: string };
let faults: FaultServer;
let other: FaultServer;
let dir: string;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-fetch-'));
  serve = await spawnServe(['--data', 'fixtures/service', '--port', '0', '--quiet']);
  other = await startFaultServer({ x: (_req, res) => json(res, 200, minimalTrace) });
  faults = await startFaultServer({
    reset: (req) => req.socket.destroy(),
    slow: (_req, res) => { setTimeout(() => json(res, 200, minimalTrace), 5000).unref(); },
    'html-502': (req, res) => json(res, 502, `<html><title>Bad Gateway</title>${req.headers.authorization}</html>`, 'text/html'),
    '429': (_req, res) => problem(res, 429, 'Too Many Requests', 'slow down', { 'retry-after': '0' }),
    'wrong-type': (_req, res) => json(res, 200, minimalTrace, 'text/html'),
    truncated: (_req, res) => json(res, 200, '{"schema_version":"1.0","observations":[{"protocol":'),
    redirect: (_req, res) => { res.writeHead(302, { location: `${other.url}/x/v1preview1/network-trace` }); res.end(); },
    teapot: (_req, res) => problem(res, 418, 'Teapot', 'no'),
    count: (_req, res) => json(res, 200, minimalTrace),
  });
});

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  await faults?.close();
  await other?.close();
  rmSync(dir, { recursive: true, force: true });
});

const viaServe = (args: string[], env: Record<string, string> = {}) =>
  run(['fetch', ...args], { NETPOLICY_BASE_URL: serve.url, NETPOLICY_TOKEN: TOKEN, ...env });
const TRACE = ['trace', '--repo', 'acme/webapp', '--job-id', '1'];
// The per-attempt timeout is generous (seconds) for scenarios the server answers at once: with a short one, an
// attempt of a fresh process on a loaded machine can time out before its request reaches the server (Node loads
// its fetch on first use), and the server then counts fewer attempts than the client made. Only `slow` needs a
// short one, and its test reads the attempts from the client's own report.
const viaFaults = (scenario: string, args: string[] = TRACE, timeout = '10') =>
  run(['fetch', ...args, '--attempts', '3', '--timeout', timeout], { NETPOLICY_BASE_URL: `${faults.url}/${scenario}`, NETPOLICY_TOKEN: FAULT_TOKEN });

function noToken(r: Run, token = TOKEN): void {
  expect(r.stdout).not.toContain(token);
  expect(r.stderr).not.toContain(token);
}

function onlyFiles(): string[] {
  return readdirSync(dir).sort();
}

describe('netpolicy fetch', () => {
  it('exit 0: writes a trace to stdout, an SBOM and an artifact record to files', async () => {
    const trace = await viaServe(['trace', '--repo', 'acme/webapp', '--job-id', '1001']);
    expect(trace.code).toBe(0);
    expect(JSON.parse(trace.stdout).job.job_id).toBe('1001');
    expect(trace.stderr).not.toMatch(/downloading/); // stderr is not a TTY
    noToken(trace);

    const out = join(dir, 'sbom.json');
    const sbom = await viaServe(['sbom', '--repo', 'acme/webapp', '--job-id', '1001', '--output', out]);
    expect(sbom.code).toBe(0);
    expect(sbom.stdout).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8')).specVersion).toBe('1.7');
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(root, 'fixtures/service/jobs/ciprovider/acme/webapp/1001/sbom.cdx.json'), 'utf8'));

    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const artifact = await run(['fetch', 'artifact', '--kind', 'oci_index', '--digest', `sha256:${INDEX}`, '--token-file', tokenFile, '--base-url', serve.url]);
    expect(artifact.code).toBe(0);
    expect(JSON.parse(artifact.stdout).contents).toHaveLength(2);
    noToken(artifact);
    rmSync(out);
    rmSync(tokenFile);
  });

  it('exit 2: selectors refused locally before any request', async () => {
    for (const args of [
      ['trace', '--repo', 'acme', '--job-id', '1'],
      ['trace', '--repo', 'acme/webapp', '--job-id', '007'],
      ['sbom', '--repo', 'acme/webapp', '--job-id', '18446744073709551616'],
      ['artifact', '--kind', 'ci_cache', '--digest', `sha256:${INDEX}`],
      ['artifact', '--kind', 'oci_index', '--digest', `sha512:${INDEX}`],
      ['artifact', '--kind', 'oci_index', '--digest', INDEX],
      ['artifact', '--kind', 'layer', '--digest', `sha256:${INDEX}`],
    ]) {
      const r = await viaFaults('count', args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/netpolicy fetch: /);
    }
    expect(faults.count('count')).toBe(0);
  });

  it('exit 2: usage and configuration errors', async () => {
    const base = ['trace', '--repo', 'acme/webapp', '--job-id', '1'];
    expect((await run(['fetch', ...base], { NETPOLICY_BASE_URL: 'http://provenance.example', NETPOLICY_TOKEN: TOKEN })).stderr).toMatch(/plain http to a non-loopback host/);
    const flag = await run(['fetch', ...base, '--token', TOKEN], { NETPOLICY_BASE_URL: serve.url });
    expect(flag.code).toBe(2);
    noToken(flag);
    expect((await run(['fetch', ...base], { NETPOLICY_TOKEN: TOKEN })).code).toBe(2);
    expect((await run(['fetch', ...base, '--token-file', join(dir, 'missing')], { NETPOLICY_BASE_URL: serve.url })).stderr).toMatch(/cannot read .*missing: no such file/);
    expect((await viaServe(['trace', '--kind', 'oci_index', '--repo', 'a/b', '--job-id', '1'])).code).toBe(2);
    expect((await viaServe(['layers'])).code).toBe(2);
    expect((await run(['fetch', '--help'])).stdout).toMatch(/Exit codes: 0 written/);
  });

  it('exit 3: expired, revoked and unknown tokens', async () => {
    for (const token of ['demo-token-expired', 'demo-token-revoked', 'wrong-token-123']) {
      const r = await viaServe(['trace', '--repo', 'acme/webapp', '--job-id', '1001'], { NETPOLICY_TOKEN: token });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/HTTP 401: Authentication failed/);
      noToken(r, token);
    }
  });

  it('exit 4: unknown job or artifact; exit 5: job not terminal', async () => {
    expect((await viaServe(['sbom', '--repo', 'acme/webapp', '--job-id', '4242'])).code).toBe(4);
    expect((await viaServe(['artifact', '--kind', 'oci_manifest', '--digest', `sha256:${'0'.repeat(64)}`])).code).toBe(4);
    const r = await viaServe(['trace', '--repo', 'acme/webapp', '--job-id', '1002']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/not terminal/);
  });

  it('exit 6: 503 from the service, resets, timeouts, HTML 502 and 429 once retries run out', async () => {
    const unavailable = await viaServe(['sbom', '--repo', 'acme/webapp', '--job-id', '1003', '--attempts', '3']);
    expect(unavailable.code).toBe(6);
    expect(unavailable.stderr).toMatch(/service unavailable after 3 attempts/);
    expect(unavailable.stderr.match(/retrying in/g)).toHaveLength(2);
    for (const scenario of ['reset', 'html-502', '429']) {
      const r = await viaFaults(scenario);
      expect(r.code, scenario).toBe(6);
      expect(r.stderr, scenario).toMatch(/service unavailable after 3 attempts/);
      // Each attempt failed on the server's answer (no attempt can time out first), so the server saw all three.
      expect(faults.count(scenario), scenario).toBe(3);
      noToken(r, FAULT_TOKEN);
    }
    // Timeouts: how many requests reach the server before the client gives up on them depends on scheduling,
    // so the client's own count is the one asserted; the server never sees more.
    const slow = await viaFaults('slow', TRACE, '0.3');
    expect(slow.code).toBe(6);
    expect(slow.stderr).toMatch(/service unavailable after 3 attempts in [\d.]+ s: no complete response within 0\.3 s/);
    expect(slow.stderr.match(/retrying in/g)).toHaveLength(2);
    expect(faults.count('slow')).toBeLessThanOrEqual(3);
    noToken(slow, FAULT_TOKEN);
  });

  it('exit 7: invalid SBOM, wrong media type, truncated JSON, redirect to another origin, other 4xx; no --output file left', async () => {
    const out = join(dir, 'result.json');
    const before = onlyFiles();
    const invalid = await viaServe(['sbom', '--repo', 'acme/legacy', '--job-id', '7', '--output', out]);
    expect(invalid.code).toBe(7);
    expect(invalid.stderr).toMatch(/not valid CycloneDX 1\.7: \/serialNumber/);
    for (const scenario of ['wrong-type', 'truncated', 'redirect', 'teapot']) {
      const r = await viaFaults(scenario, ['trace', '--repo', 'acme/webapp', '--job-id', '1', '--output', out]);
      expect(r.code, scenario).toBe(7);
      noToken(r, FAULT_TOKEN);
    }
    expect(onlyFiles()).toEqual(before);
    expect(existsSync(out)).toBe(false);
    expect(other.seen).toEqual([]);
  });

  it('keeps an existing --output file untouched when the fetch fails', async () => {
    const out = join(dir, 'keep.json');
    writeFileSync(out, 'previous');
    expect((await viaServe(['sbom', '--repo', 'acme/legacy', '--job-id', '7', '-o', out])).code).toBe(7);
    expect(readFileSync(out, 'utf8')).toBe('previous');
    expect((await viaServe(['sbom', '--repo', 'acme/legacy', '--job-id', '7', '-o', out, '--no-validate'])).code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).serialNumber).toBe('not-a-uuid');
    rmSync(out);
    expect(onlyFiles()).toEqual([]);
  });
});
