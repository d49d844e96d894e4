/** `fetch` in-process with a fake TTY: progress on stderr for a slow download, stdout untouched. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { command } from '../src/commands/fetch';
import { minimalTrace, startFaultServer, type FaultServer } from './client-fault-server';

let server: FaultServer;
const big = JSON.stringify({ ...minimalTrace, padding: 'p'.repeat(1024 * 1024) });

beforeAll(async () => {
  server = await startFaultServer({
    big: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(big.length) });
      const chunk = 128 * 1024;
      let offset = 0;
      const next = () => {
        res.write(big.slice(offset, offset + chunk));
        offset += chunk;
        if (offset >= big.length) res.end();
        else setTimeout(next, 60);
      };
      next();
    },
  });
});
afterAll(() => server?.close());

function io(isTTY: boolean) {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdout: { write: (t: string) => (out.stdout += t), isTTY },
      stderr: { write: (t: string) => (out.stderr += t), isTTY },
      env: { NETPOLICY_BASE_URL: `${server.url}/big`, NETPOLICY_TOKEN: 'progress-token' },
      cwd: process.cwd(),
    },
  };
}

it('shows progress on a TTY and clears the line afterwards', async () => {
  const { out, io: tty } = io(true);
  expect(await command.run(['trace', '--repo', 'acme/webapp', '--job-id', '1'], tty)).toBe(0);
  expect(out.stderr).toMatch(/\rdownloading \d\.\d MiB of 1\.0 MiB/);
  expect(out.stderr.endsWith('\r\u001b[K')).toBe(true);
  expect(JSON.parse(out.stdout).padding.length).toBe(1024 * 1024);
  expect(out.stderr + out.stdout).not.toContain('progress-token');
});

it('shows no progress when stderr is not a TTY, or with --quiet', async () => {
  for (const [tty, args] of [[false, []], [true, ['--quiet']]] as const) {
    const { out, io: pipe } = io(tty);
    expect(await command.run(['trace', '--repo', 'acme/webapp', '--job-id', '1', ...args], pipe)).toBe(0);
    expect(out.stderr).toBe('');
  }
});
