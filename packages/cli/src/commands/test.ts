import { parseCommandArgs } from '../args';
import { checkPolicyTestFile, PolicyTestFileError, runPolicyTests, type PolicyTestResult } from '@netpolicy/core';
import type { Command } from '../command';
import { EXIT, paint, UsageError, useColor } from '../io';
import { presetCatalogOption } from '../presets-option';
import { escapeControl as e } from '../escape';
import { loadPolicy, readJsonFile } from '../explain-inputs';

const usage = `Usage: netpolicy test --policy FILE [--format text|json] [--presets FILE] TESTS...

Runs policy test files: accesses with the verdict the policy must give (and optionally the
deciding rule), like Tailscale's ACL tests. A test file (schemas/policy-tests.schema.json):

  {"tests": [
    {"name": "pip reaches PyPI", "http": {"method": "GET", "url": "https://pypi.org/simple/requests/"},
     "expect": "allow", "rule": "preset:pypi"},
    {"tls": {"serverName": "telemetry.example.io", "port": 443}, "expect": "deny"},
    {"tcp": {"hostnames": ["db.internal"], "remoteIp": "10.20.4.4", "port": 5432}, "expect": "allow"},
    {"ssh": {"host": "github.com", "port": 22, "user": "git", "repositoryPath": "acme/app.git"}, "expect": "allow"}
  ]}

Options:
  --policy FILE        The policy under test.
  --format text|json   text (default) or JSON ({"files":[{"file","results":[...]}],"passed":N,"failed":N}).
  --presets FILE       A preset catalog that fills in or overrides the built-in one.

Example:
  netpolicy test --policy fixtures/traces/denials/policy.json fixtures/traces/denials/policy.tests.json

Exit codes: 0 every test passed; 1 a test failed; 2 usage error, unreadable file, or a policy or
test file that is not valid (message on stderr).
`;

export const command: Command = {
  name: 'test',
  summary: 'Run policy test files (accesses with expected verdicts)',
  usage,
  async run(args, io) {
    const parsed = parseCommandArgs({ args, options: { policy: { type: 'string' }, presets: { type: 'string' }, format: { type: 'string', default: 'text' } }, allowPositionals: true, strict: true });
    const { values, positionals } = parsed;
    if (!values.policy) throw new UsageError('missing option --policy FILE');
    if (positionals.length === 0) throw new UsageError('missing argument TESTS (one or more test files)');
    if (values.format !== 'text' && values.format !== 'json') throw new UsageError(`option --format must be text or json, not \`${values.format}\``);
    const catalog = presetCatalogOption(values.presets);
    const policy = loadPolicy(values.policy, catalog);
    const files: { file: string; results: PolicyTestResult[] }[] = [];
    for (const file of positionals) {
      let tests;
      try {
        tests = checkPolicyTestFile(readJsonFile(file));
      } catch (error) {
        if (error instanceof PolicyTestFileError) throw new UsageError(`${file}: ${error.message}`);
        throw error;
      }
      files.push({ file, results: runPolicyTests(policy, tests, { catalog }) });
    }
    const all = files.flatMap((f) => f.results);
    const failed = all.filter((r) => !r.passed).length;
    if (values.format === 'json') {
      io.stdout.write(JSON.stringify({
        files: files.map((f) => ({ file: f.file, results: f.results.map((r) => ({ index: r.index, name: r.name, expect: r.expect, ...(r.expectRule ? { expectRule: r.expectRule } : {}), actual: r.actual, passed: r.passed, ...(r.message ? { message: r.message } : {}) })) })),
        passed: all.length - failed, failed,
      }, null, 2) + '\n');
    } else {
      const c = paint(useColor(io));
      const out: string[] = [];
      for (const f of files) {
        out.push(c.bold(e(f.file)));
        for (const r of f.results) {
          if (r.passed) out.push(`  ${c.green('✓')} ${e(r.name)} ${c.gray(`(${r.actual.verdict} by ${e(r.actual.rule ?? '')})`)}`);
          else out.push(`  ${c.red('✗')} ${e(r.name)}`, `      ${e(r.message ?? '')}`);
        }
      }
      out.push('', `${all.length - failed} passed, ${failed} failed`);
      io.stdout.write(out.join('\n') + '\n');
    }
    return failed > 0 ? EXIT.findings : EXIT.ok;
  },
};
