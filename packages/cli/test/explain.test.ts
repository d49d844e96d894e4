import { describe, expect, it, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { bin, repoRoot, runCli } from './run-cli';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/main';

const fixtures = new URL('../../../fixtures/traces/', import.meta.url).pathname;
const fx = (p: string) => join(fixtures, p);

/** Runs the CLI in-process with captured streams. */
async function run(args: string[], options: { tty?: boolean; env?: Record<string, string> } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: { write: (t: string) => { stdout += t; return true; }, isTTY: options.tty ?? false },
    stderr: { write: (t: string) => { stderr += t; return true; }, isTTY: false },
    env: options.env ?? {},
    cwd: process.cwd(),
  });
  return { code, stdout, stderr };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-explain-'));
  writeFileSync(join(dir, 'invalid-policy.json'), '{"default": "deny", "presets": ["pypy"]}');
  writeFileSync(join(dir, 'bad-trace.json'), '{"observations": [{"protocol": "tcp", "remote_port": "443"}]}');
  writeFileSync(join(dir, 'truncated.json'), '{"observations": [{"protocol": "dns"}');
});

describe('netpolicy explain', () => {
  it('text: denials first, grouped by destination with counts, then a summary; no colour off a TTY', async () => {
    const r = await run(['explain', '--policy', fx('denials/policy.netpolicy.json'), '--trace', fx('denials/trace.json')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain('\u001b[');
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('recorded: what the job\'s network layer did (the trace). model: what this policy allows (the evaluation model).');
    expect(lines[2]).toBe('Denied by the model: 10 accesses to 9 destinations');
    // The legend is said once; no entry repeats the recorded/model sentence.
    expect(r.stdout).not.toContain('; model: denied by the default');
    expect(r.stdout).toContain('✗ GET https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz  ×2  (sequence 2, 3; recorded: not allowed by policy)');
    // Rules are named by kind and first host beside the pointer.
    expect(r.stdout).toContain('nearest rule: /connections/0 (tls *.example.org): `*.example.org` matches names below example.org, never example.org itself');
    expect(r.stdout).toContain('nearest rule: /sources/1 (oci ghcr.example.com): PUT is operation `push`');
    expect(r.stdout).toContain('✓ /sources/0 (npm registry.npmjs.org)  ×1');
    expect(r.stdout).toContain('fix: add to /sources: {"npm":{"urls":["https://registry.yarnpkg.com"]}}');
    expect(r.stdout).toContain('Denied to the job, allowed by the model: 1 access to 1 destination\n\n  ! GET https://files.pythonhosted.org/packages/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl  (sequence 12; recorded: blocked by organisation egress list)\n      allowed by preset:pypi');
    expect(r.stdout.indexOf('Denied by the model:')).toBeLessThan(r.stdout.indexOf('Denied to the job, allowed by the model'));
    // Counted by recorded verdict, the model's count beside each.
    expect(lines.at(-2)).toBe('Summary: 15 observations recorded as 3 allowed (model: 4), 11 denied (model: 10), 1 without a verdict (model: 1); 1 disagreement');
  });

  it('text: accesses the job performed that the model denies have their own section, not under the denials', async () => {
    const trace = join(dir, 'performed.json');
    writeFileSync(trace, JSON.stringify({ observations: [
      { protocol: 'http', sequence: 1, method: 'GET', url: 'https://telemetry.example.io/v1/collect', denied: false },
      { protocol: 'http', sequence: 2, method: 'GET', url: 'https://telemetry.example.io/v1/collect', denied: false },
      { protocol: 'http', sequence: 3, method: 'GET', url: 'https://blocked.example.io/', denied: true },
    ] }));
    const r = await run(['explain', '--policy', fx('denials/policy.netpolicy.json'), '--trace', trace]);
    expect(r.code).toBe(0);
    const denied = r.stdout.indexOf('Denied by the model: 1 access to 1 destination');
    const performed = r.stdout.indexOf('Performed by the job, denied by the model: 2 accesses to 1 destination');
    expect(denied).toBeGreaterThan(0);
    expect(performed).toBeGreaterThan(denied);
    expect(r.stdout.slice(denied, performed)).not.toContain('telemetry');
    expect(r.stdout.slice(performed)).toContain('! GET https://telemetry.example.io/v1/collect  ×2  (sequence 1, 2)');
    expect(r.stdout.slice(performed)).toContain('fix: add to /connections: {"tls":{"serverNamePatterns":["telemetry.example.io"],"ports":[443]}}');
    expect(r.stdout).toContain('Summary: 3 observations recorded as 2 allowed (model: 0), 1 denied (model: 3); 2 disagreements');
  });

  it('colours on a TTY (and honours NO_COLOR)', async () => {
    const tty = await run(['explain', '--policy', fx('denials/policy.netpolicy.json'), '--trace', fx('denials/trace.json')], { tty: true });
    expect(tty.stdout).toContain('\u001b[31m');
    const plain = await run(['explain', '--policy', fx('denials/policy.netpolicy.json'), '--trace', fx('denials/trace.json')], { tty: true, env: { NO_COLOR: '1' } });
    expect(plain.stdout).not.toContain('\u001b[');
  });

  it('json: the contracts.md shape', async () => {
    const r = await run(['explain', '--format', 'json', '--policy', fx('denials/policy.netpolicy.json'), '--trace', fx('denials/trace.json'), '--only', 'denied']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.summary).toMatchObject({ observations: 15, allowed: 4, denied: 10, disagreements: 1 });
    expect(out.results).toHaveLength(11);
    expect(out.results[0]).toEqual({
      sequence: 2, protocol: 'http', destination: 'GET https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz',
      recorded: { verdict: 'deny', reason: 'not allowed by policy', rule: null },
      model: { verdict: 'deny', rule: 'default', certain: true },
      agrees: true,
      fix: { pointer: '/sources/-', value: { npm: { urls: ['https://registry.yarnpkg.com'] } } },
      nearMiss: null,
    });
    const all = JSON.parse((await run(['explain', '--format', 'json', '--policy', fx('python-build/policy.netpolicy.json'), '--trace', fx('python-build/trace.json')])).stdout);
    expect(all.results).toHaveLength(14);
    expect(all.results[0]).toMatchObject({ sequence: 1, protocol: 'dns', recorded: { verdict: 'none' }, model: { verdict: 'none', rule: null } });
    expect(all.results[1]).toMatchObject({ sequence: 2, model: { verdict: 'allow', rule: 'preset:pypi', certain: true }, agrees: true, fix: null });
  });

  it('markdown: a table of denials for a job summary', async () => {
    const r = await run(['explain', '--format', 'markdown', '--policy', fx('npm-build/policy.netpolicy.json'), '--trace', fx('npm-build/trace.json')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('## Network policy: explain');
    expect(r.stdout).toContain('| Destination | Count | Recorded vs model | Nearest rule | Fix |');
    expect(r.stdout).toContain('| `tls telemetry.example.io:443` | 1 |');
    expect(r.stdout).toContain('uncertain');
  });

  it('--presets fills in an opaque preset: its denials become certain, its allowances named', async () => {
    const catalog = join(dir, 'catalog.json');
    writeFileSync(catalog, JSON.stringify({ presets: [{ name: 'generic-http', description: 'filled in', known: { connections: [{ tls: { serverNamePatterns: ['telemetry.example.io'], ports: [443] } }] } }] }));
    const before = JSON.parse((await run(['explain', '--format', 'json', '--policy', fx('npm-build/policy.netpolicy.json'), '--trace', fx('npm-build/trace.json')])).stdout);
    expect(before.results.find((r: any) => r.sequence === 14).model).toEqual({ verdict: 'deny', rule: 'default', certain: false });
    const after = JSON.parse((await run(['explain', '--format', 'json', '--presets', catalog, '--policy', fx('npm-build/policy.netpolicy.json'), '--trace', fx('npm-build/trace.json')])).stdout);
    expect(after.results.find((r: any) => r.sequence === 14)).toMatchObject({ model: { verdict: 'allow', rule: 'preset:generic-http', certain: true }, agrees: false });
    expect(after.summary.disagreements).toBe(2);
  });

  it('--fail-on denied exits 1', async () => {
    expect((await run(['explain', '--fail-on', 'denied', '--policy', fx('denials/policy.netpolicy.json'), '--trace', fx('denials/trace.json')])).code).toBe(1);
    expect((await run(['explain', '--fail-on', 'denied', '--policy', fx('python-build/policy.netpolicy.json'), '--trace', fx('python-build/trace.json')])).code).toBe(0);
  });

  it('exit 2 with the message on stderr for an invalid policy, an invalid trace, bad options', async () => {
    const p = await run(['explain', '--policy', join(dir, 'invalid-policy.json'), '--trace', fx('denials/trace.json')]);
    expect(p.code).toBe(2);
    expect(p.stderr).toContain('is not a valid policy');
    expect(p.stderr).toContain('unknown-preset');
    const t = await run(['explain', '--policy', fx('denials/policy.netpolicy.json'), '--trace', join(dir, 'bad-trace.json')]);
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('observation 0: `remote_port` must be an integer, got the string "443"');
    const cut = await run(['explain', '--policy', fx('denials/policy.netpolicy.json'), '--trace', join(dir, 'truncated.json')]);
    expect(cut.code).toBe(2);
    expect(cut.stderr).toContain('truncated');
    const missing = await run(['explain', '--policy', fx('denials/policy.netpolicy.json'), '--trace', join(dir, 'nope.json')]);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toContain('no such file');
    expect((await run(['explain', '--trace', fx('denials/trace.json')])).stderr).toContain('missing option --policy');
    expect((await run(['explain', '--policy', 'a', '--trace', 'b', '--format', 'yaml'])).code).toBe(2);
    expect((await run(['explain', '--help'])).stdout).toContain('Exit codes');
  });
});

describe('explain: a trace invalid partway', () => {
  it('exits 2 with the message on stderr; stdout is never a complete JSON report', () => {
    const good = Array.from({ length: 1500 }, (_, i) => JSON.stringify({ protocol: 'http', sequence: i, url: `https://x${i}.example/${'p'.repeat(40)}`, denied: true }));
    for (const [name, bad] of [['type', '{"protocol":"tcp","remote_port":"443"}'], ['syntax', '{"protocol":"http",]'], ['truncated', '{"protocol":"dns"']]) {
      const file = join(mkdtempSync(join(tmpdir(), 'netpolicy-explain-partway-')), `${name}.json`);
      writeFileSync(file, `{"observations":[${good.join(',')},${bad}${name === 'truncated' ? '' : ']}'}`);
      for (const format of ['json', 'text']) {
        const r = runCli(['explain', '--format', format, '--policy', 'fixtures/traces/denials/policy.netpolicy.json', '--trace', file]);
        expect(r.code, `${name} ${format}`).toBe(2);
        expect(r.stderr).toMatch(name === 'truncated' ? /truncated/ : /observation 1500/);
        if (format === 'text') expect(r.stdout).toBe('');
        else expect(() => JSON.parse(r.stdout)).toThrow();
      }
    }
  });
});

describe('explain: reading a trace file', () => {
  it('decodes UTF-8 across read blocks (64 KiB; 1 MiB is a boundary) like readFileSync: characters cut by a block boundary kept, malformed bytes as U+FFFD', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'netpolicy-explain-utf8-')), 'trace.json');
    const parts: Buffer[] = [Buffer.from('{"observations":[')];
    let size = parts[0].length;
    // Requests whose URLs hold 2-, 3- and 4-byte characters, shifted by one byte each time so that
    // every block boundary falls inside some character; a few hold a byte that is not UTF-8.
    for (let i = 0; size < 2.5 * (1 << 20); i++) {
      const head = Buffer.from(`${i ? ',' : ''}{"protocol":"http","sequence":${i},"url":"https://h.example/${'a'.repeat(i % 4)}é€😀`);
      const bad = i % 997 === 0 ? Buffer.from([0xff, 0xc3]) : Buffer.alloc(0);
      const tail = Buffer.from(`${'b'.repeat(200)}","denied":true}`);
      parts.push(head, bad, tail);
      size += head.length + bad.length + tail.length;
    }
    parts.push(Buffer.from(']}'));
    // Spaces before the first element move the first block boundary into a character (a continuation byte).
    const body = Buffer.concat(parts);
    let pad = 0;
    while ((body[(1 << 20) - pad] & 0xc0) !== 0x80) pad++;
    writeFileSync(file, Buffer.concat([parts[0], Buffer.alloc(pad, 0x20), body.subarray(parts[0].length)]));
    expect(readFileSync(file)[1 << 20] & 0xc0).toBe(0x80);
    const expected = (JSON.parse(readFileSync(file, 'utf8')).observations as { url: string }[]).map((o) => `GET ${o.url}`);
    expect(expected.some((d) => d.includes('\ufffd'))).toBe(true);
    const r = spawnSync(process.execPath, [bin, 'explain', '--format', 'json', '--policy', 'fixtures/traces/denials/policy.netpolicy.json', '--trace', file], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 26, timeout: 30000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout).results as { destination: string }[]).map((x) => x.destination)).toEqual(expected);
  });

  it('a block that ends in the first byte of a character, followed by ASCII alone: the byte is U+FFFD, nothing lost', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'netpolicy-explain-utf8-')), 'trace.json');
    const record = (i: number) => `{"protocol":"http","sequence":${i},"url":"https://h.example/${i}/${'c'.repeat(100)}","denied":true}`;
    let head = '{"observations":[';
    for (let i = 0; head.length < (1 << 20) - 400; i++) head += `${record(i)},`;
    // The last record of the first block: its URL runs to the block's last byte, a lone 0xc3.
    const open = `{"protocol":"http","sequence":-1,"url":"https://h.example/cut/`;
    const fill = (1 << 20) - 1 - Buffer.byteLength(head) - open.length;
    const first = Buffer.concat([Buffer.from(head + open + 'd'.repeat(fill)), Buffer.from([0xc3])]);
    expect(first.length).toBe(1 << 20);
    let rest = 'tail","denied":true}';
    for (let i = 0; rest.length < 300000; i++) rest += `,${record(100000 + i)}`;
    writeFileSync(file, Buffer.concat([first, Buffer.from(`${rest}]}`)]));
    const expected = (JSON.parse(readFileSync(file, 'utf8')).observations as { url: string }[]).map((o) => `GET ${o.url}`);
    expect(expected.filter((d) => d.includes('\ufffdtail'))).toHaveLength(1);
    const r = spawnSync(process.execPath, [bin, 'explain', '--format', 'json', '--policy', 'fixtures/traces/denials/policy.netpolicy.json', '--trace', file], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 26, timeout: 30000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout).results as { destination: string }[]).map((x) => x.destination)).toEqual(expected);
  });
});

describe('explain: DNS answers after the connection they name', () => {
  const args = ['explain', '--policy', 'fixtures/traces/late-dns/policy.netpolicy.json', '--format', 'json'];
  it('a trace file is read again so that every answer counts (D4)', () => {
    const r = runCli([...args, '--trace', 'fixtures/traces/late-dns/trace.json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.results.map((x: { sequence: number; model: { rule: string } }) => [x.sequence, x.model.rule])).toEqual([[1, '/connections/0'], [2, null], [3, 'default']]);
    expect(out.summary).toMatchObject({ allowed: 1, denied: 1, disagreements: 0 });
  });
  it('a trace on stdin is read once: a warning says what that means', () => {
    const r = runCli([...args, '--trace', '-'], { input: readFileSync('fixtures/traces/late-dns/trace.json', 'utf8') });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('DNS answers arrived after connections');
  });
  it('diff reads a file\'s DNS answers first', () => {
    const r = runCli(['diff', '--format', 'json', '--trace', 'fixtures/traces/late-dns/trace.json', 'fixtures/traces/late-dns/policy.netpolicy.json', 'fixtures/policies/minimal.netpolicy.json']);
    const out = JSON.parse(r.stdout);
    expect(out.changes.map((c: { sequence: number; change: string }) => [c.sequence, c.change])).toEqual([[1, 'newly-denied']]);
  });
});
