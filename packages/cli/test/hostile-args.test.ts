/**
 * Re-probe of the option grammar, as processes: every command (fetch and serve too, now declared
 * by a CommandSpec like the others) names an unknown option and suggests the nearest, refuses a
 * value it cannot use in one line, and never lets Node's own wording (several lines, "ambiguous")
 * through.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageText } from '../src/args';
import { spec as fetchSpec } from '../src/commands/fetch';
import { spec as serveSpec } from '../src/commands/serve';
import { ensureBuilt, root } from './fetch-cli-helpers';
import { runProc } from './hostile-helpers';

const POLICY = join(root, 'fixtures/traces/denials/policy.netpolicy.json');
const TRACE = join(root, 'fixtures/traces/denials/trace.json');

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-hostile-args-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A usage error: exit 2, `first` as the first line, then only the pointer to --help. */
async function usageError(args: string[], first: string): Promise<void> {
  const r = await runProc(args);
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.split('\n');
  expect(lines[0]).toBe(first);
  expect(r.stderr).not.toMatch(/\\n|ambiguous|To specify|Error:|\n {4}at /);
  expect(lines.slice(1).filter((l) => l !== '' && !/^Run `netpolicy [a-z]+ --help` for usage\.$/.test(l))).toEqual([]);
}

describe('unknown options: named, with the nearest known one', () => {
  const cases: [string[], string][] = [
    [['check', '--stirct', POLICY], 'netpolicy check: unknown option `--stirct`. Did you mean `--strict`?'],
    [['check', '--sstrict', POLICY], 'netpolicy check: unknown option `--sstrict`. Did you mean `--strict`?'],
    [['explain', '--polcy', POLICY, '--trace', TRACE], 'netpolicy explain: unknown option `--polcy`. Did you mean `--policy`?'],
    [['suggest', '--incldue-denied', TRACE], 'netpolicy suggest: unknown option `--incldue-denied`. Did you mean `--include-denied`?'],
    [['diff', '--traces', TRACE, POLICY, POLICY], 'netpolicy diff: unknown option `--traces`. Did you mean `--trace`?'],
    [['fetch', 'trace', '--rpo', 'acme/webapp'], 'netpolicy fetch: unknown option `--rpo`. Did you mean `--repo`?'],
    [['fetch', 'trace', '--jobid', '1'], 'netpolicy fetch: unknown option `--jobid`. Did you mean `--job-id`?'],
    [['fetch', 'trace', '--timout=5'], 'netpolicy fetch: unknown option `--timout`. Did you mean `--timeout`?'],
    [['serve', '--dta', 'x'], 'netpolicy serve: unknown option `--dta`. Did you mean `--data`?'],
    [['serve', '--prot', '0'], 'netpolicy serve: unknown option `--prot`. Did you mean `--port`?'],
    [['init', '--force'], 'netpolicy init: unknown option `--force`'],
    [['check', '--\u001b[31mred', POLICY], 'netpolicy check: unknown option `--\\u001b[31mred`'],
  ];
  for (const [args, first] of cases) it(args.slice(0, 2).join(' '), () => usageError(args, first));

  it('unknown commands and top-level options suggest too', async () => {
    for (const [typed, near, kind] of [['chek', 'check', 'command'], ['expalin', 'explain', 'command'], ['--versoin', '--version', 'option'], ['hepl', 'help', 'command']]) {
      const r = await runProc([typed]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`netpolicy: unknown ${kind} \`${typed}\`. Did you mean \`${near}\`? Commands: init, check, explain, suggest, test, diff, fetch, serve.\n`);
    }
    const far = await runProc(['zzzzzz']);
    expect(far.stderr).toBe('netpolicy: unknown command `zzzzzz`. Commands: init, check, explain, suggest, test, diff, fetch, serve.\n');
  });
});

describe('values a command cannot use: one line each', () => {
  it('a boolean given a value, --help included', async () => {
    await usageError(['check', '--help=yes', POLICY], 'netpolicy check: option --help takes no value');
    await usageError(['serve', '--quiet=1', '--data', 'x'], 'netpolicy serve: option --quiet takes no value');
  });

  it('a value that starts with `-` after a space (Node calls it ambiguous)', async () => {
    await usageError(['serve', '--data', 'fixtures/service', '--port', '-1'], 'netpolicy serve: option --port needs a value (N); for a value that starts with `-`, write --port=VALUE');
    await usageError(['fetch', 'trace', '--timeout', '-5'], 'netpolicy fetch: option --timeout needs a value (SECONDS); for a value that starts with `-`, write --timeout=VALUE');
  });

  it('an empty value or argument', async () => {
    await usageError(['check', '--config', '', POLICY], 'netpolicy check: option --config needs a value (FILE), not an empty string');
    await usageError(['explain', '--policy', '', '--trace', TRACE], 'netpolicy explain: option --policy needs a value (FILE), not an empty string');
    await usageError(['fetch', 'trace', '--repo=', '--job-id', '1'], 'netpolicy fetch: option --repo needs a value (OWNER/REPO), not an empty string');
    await usageError(['check', ''], 'netpolicy check: an argument is an empty string; expected FILE|DIR|- (policy files or folders to check)');
  });

  it('serve --host "" is refused: it would listen on every interface', async () => {
    await usageError(['serve', '--data', 'fixtures/service', '--port', '0', '--host', ''], 'netpolicy serve: option --host needs a value (ADDR), not an empty string');
  });

  it('a single-valued option given twice with different values (which one did the user mean?)', async () => {
    await usageError(['check', '--format', 'json', '--format', 'sarif', POLICY], 'netpolicy check: option --format is given twice (`json`, then `sarif`); it takes one value');
    await usageError(['explain', '--policy', POLICY, '--policy', 'other.json', '--trace', TRACE],
      `netpolicy explain: option --policy is given twice (\`${POLICY.length > 60 ? `${POLICY.slice(0, 60)}…` : POLICY}\`, then \`other.json\`); it takes one value`);
    // The same value twice, a repeated flag and a repeatable option are fine.
    expect((await runProc(['check', '--format', 'json', '--format=json', '--strict', '--strict', POLICY])).code).toBe(0);
    expect((await runProc(['diff', '--trace', TRACE, '--trace', TRACE, POLICY, POLICY])).code).toBe(0);
  });

  it('fetch: the argument is one of sbom, trace, artifact, with the nearest', async () => {
    await usageError(['fetch', 'trcae'], 'netpolicy fetch: the argument must be `sbom`, `trace` or `artifact`, not `trcae`. Did you mean `trace`?');
    await usageError(['fetch'], 'netpolicy fetch: missing argument sbom|trace|artifact (what to download)');
    await usageError(['fetch', 'trace', '--token', 'secret-value-123'], 'netpolicy fetch: tokens are not taken as a plain option (they would show in process lists and shell history); use NETPOLICY_TOKEN or --token-file FILE');
    await usageError(['fetch', 'trace', '--token=secret-value-123'], 'netpolicy fetch: tokens are not taken as a plain option (they would show in process lists and shell history); use NETPOLICY_TOKEN or --token-file FILE');
  });

  it('fetch --attempts is a whole number; --timeout a number of seconds', async () => {
    const fetch = ['fetch', 'trace', '--repo', 'acme/webapp', '--job-id', '1', '--base-url', 'http://127.0.0.1:9', '--quiet'];
    await usageError([...fetch, '--attempts', '1.5'], 'netpolicy fetch: option --attempts must be a whole number from 1 to 100, got 1.5');
    await usageError([...fetch, '--timeout', '.5'], 'netpolicy fetch: option --timeout must be a number from 0.001 to 86400 seconds (one day), such as 30 or 2.5, got .5');
    // Without --quiet and without a token: the usage error is still the only line (the "no token"
    // notice came first before).
    await usageError(['fetch', 'trace', '--repo', 'acme/webapp', '--job-id', '1', '--base-url', 'http://127.0.0.1:9', '--attempts', '0'], 'netpolicy fetch: option --attempts must be a whole number from 1 to 100, got 0');
    await usageError(['fetch', 'trace', '--job-id', '1', '--base-url', 'http://127.0.0.1:9'], 'netpolicy fetch: missing option --repo OWNER/REPO');
  });

  it('after `--`, `--help` is a file name, not a request for help', async () => {
    const r = await runProc(['check', '--', '--help']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('netpolicy check: cannot read --help: no such file\n');
  });
});

describe('fetch and serve are declared like the other commands', () => {
  it('their --help is the CommandSpec text', async () => {
    expect((await runProc(['fetch', '--help'])).stdout).toBe(usageText(fetchSpec));
    expect((await runProc(['help', 'serve'])).stdout).toBe(usageText(serveSpec));
    expect(usageText(fetchSpec)).toContain('NETPOLICY_TOTAL_TIMEOUT_MS');
  });
});

describe('messages with several parts keep one line each', () => {
  it('a bad netpolicy.config.json: the message, then one line per problem (no escaped line breaks)', async () => {
    const project = mkdtempSync(join(dir, 'project-'));
    writeFileSync(join(project, 'netpolicy.config.json'), '{\n  "severty": {},\n  "filePatterns": 5\n}\n');
    writeFileSync(join(project, 'a.netpolicy.json'), '{"default": "deny"}');
    const r = await runProc(['check', 'a.netpolicy.json'], { cwd: project });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('netpolicy check: netpolicy.config.json is not a valid netpolicy config:');
    expect(lines[1]).toMatch(/^ {2}netpolicy\.config\.json:2:3: unknown-property: /);
    expect(lines[2]).toMatch(/^ {2}netpolicy\.config\.json:3:19: /);
    expect(r.stderr).not.toContain('\\n');
  });
});
