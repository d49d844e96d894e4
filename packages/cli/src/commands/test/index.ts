import { formatOption, outputOption, parseCommand, presetsOption, usageText, type CommandSpec } from '../../args';
import { checkPolicyTestFile, PolicyTestFileError, runPolicyTests, type Policy, type PolicyTestResult } from '@netpolicy/core';
import type { Command } from '../../command';
import { EXIT, paint, UsageError, useColor } from '../../io';
import { presetCatalogOption } from '../../presets-option';
import { clipped as e } from '../../escape';
import { loadPolicy } from '../../inputs';
import { checkOneStdin, readInput, reportSink, shownName } from '../../report-output';
import { boundPolicyPath } from './bind';

/** Reads and parses a JSON test file (`-` is stdin); a syntax error is exit 2. */
function readJsonInput(file: string): { text: string; data: unknown } {
  const text = readInput(file);
  try {
    return { text, data: JSON.parse(text) };
  } catch (error) {
    throw new UsageError(`${shownName(file)}: not valid JSON: ${(error as Error).message}`);
  }
}

export const spec: CommandSpec = {
  name: 'test',
  summary: 'Run policy test files (accesses with expected verdicts)',
  synopsis: ['test [--policy FILE] [options] TESTS|-...'],
  description: `Runs policy test files: accesses with the verdict the policy must give (and optionally the
deciding rule), like Tailscale's ACL tests. A test file (schemas/policy-tests.schema.json,
docs/policy-tests.md):

  {"tests": [
    {"name": "pip reaches PyPI", "http": {"method": "GET", "url": "https://pypi.org/simple/requests/"},
     "expect": "allow", "rule": "preset:pypi"},
    {"tls": {"serverName": "telemetry.example.io", "port": 443}, "expect": "deny"},
    {"tcp": {"hostnames": ["db.internal"], "remoteIp": "10.20.4.4", "port": 5432}, "expect": "allow"},
    {"ssh": {"host": "github.com", "port": 22, "user": "git", "repositoryPath": "acme/app.git"}, "expect": "allow"}
  ]}

Without --policy, each test file tests its own policy: its "policy" member (a path relative to the
test file's folder), else the only policy file in its folder (*.netpolicy.json, *.netpolicy.jsonc,
network-policy.json). Several there and no "policy" member, or none, is exit 2.

\`netpolicy init\` writes a sample next to a starter policy.`,
  options: {
    policy: { type: 'string', value: 'FILE', help: 'The policy under test, for every test file (JSON, or JSONC for .jsonc files; - reads stdin). Default: each test file\'s own (its "policy" member, else the only policy file in its folder).' },
    format: formatOption(['text', 'json', 'github', 'gitlab', 'junit'], 'Report format: text, json ({"files":[{"file","results":[...]}],"passed":N,"failed":N}), github (an annotation on each failing test, and a job summary when GITHUB_STEP_SUMMARY is set), gitlab (a Code Quality report of the failing tests) or junit (JUnit XML: a test case per policy test). See docs/ci.md.'),
    output: outputOption,
    presets: presetsOption,
  },
  operands: { min: 1, name: 'TESTS (one or more test files, or - for stdin)' },
  examples: ['netpolicy test fixtures/traces/denials/policy.tests.json', 'netpolicy test --policy fixtures/traces/denials/policy.netpolicy.json fixtures/traces/denials/policy.tests.json'],
  exitCodes: [[0, 'every test passed'], [1, 'a test failed'], [2, 'usage error, unreadable file, a policy or test file that is not valid, or a test file without --policy whose policy cannot be told (several or none in its folder)']],
};

export const command: Command = {
  name: 'test',
  summary: 'Run policy test files (accesses with expected verdicts)',
  usage: usageText(spec),
  spec,
  async run(args, io) {
    const { values, positionals } = parseCommand(spec, args);
    checkOneStdin([values.policy as string | undefined, ...positionals]);
    const catalog = presetCatalogOption(values.presets as string | undefined);
    // --policy: one policy for every file; without it, each file's own (bind.ts), each read once.
    const given = values.policy ? loadPolicy(values.policy as string, catalog) : undefined;
    const policies = new Map<string, Policy>();
    const policyOf = (file: string, data: unknown): Policy => {
      if (given) return given;
      const path = boundPolicyPath(file, data, shownName(file));
      let policy = policies.get(path);
      if (!policy) policies.set(path, (policy = loadPolicy(path, catalog)));
      return policy;
    };
    const sink = reportSink(io, values.output as string | undefined);
    const files: { file: string; text: string; results: PolicyTestResult[] }[] = [];
    for (const file of positionals) {
      let tests;
      const { text, data } = readJsonInput(file);
      try {
        tests = checkPolicyTestFile(data);
      } catch (error) {
        if (error instanceof PolicyTestFileError) throw new UsageError(`${shownName(file)}: ${error.message}`);
        throw error;
      }
      files.push({ file: shownName(file), text, results: runPolicyTests(policyOf(file, data), tests, { catalog }) });
    }
    const all = files.flatMap((f) => f.results);
    const failed = all.filter((r) => !r.passed).length;
    if (values.format === 'json') {
      sink.write(JSON.stringify({
        files: files.map((f) => ({ file: f.file, results: f.results.map((r) => ({ index: r.index, name: r.name, expect: r.expect, ...(r.expectRule ? { expectRule: r.expectRule } : {}), actual: r.actual, passed: r.passed, ...(r.message ? { message: r.message } : {}) })) })),
        passed: all.length - failed, failed,
      }, null, 2) + '\n');
    } else if (values.format === 'junit') {
      sink.write((await import('./ci')).junitTestReport(files));
    } else if (values.format === 'gitlab') {
      sink.write((await import('./ci')).gitlabTestReport(io, files));
    } else {
      const github = values.format === 'github';
      const c = paint(!github && sink.toStdout && useColor(io));
      const out: string[] = [];
      for (const f of files) {
        out.push(c.bold(e(f.file)));
        for (const r of f.results) {
          if (r.passed) out.push(`  ${c.green('✓')} ${e(r.name)} ${c.gray(`(${r.actual.verdict} by ${e(r.actual.rule ?? '')})`)}`);
          else out.push(`  ${c.red('✗')} ${e(r.name)}`, `      ${e(r.message ?? '')}`);
        }
      }
      out.push('', `${all.length - failed} passed, ${failed} failed`);
      const text = out.join('\n') + '\n';
      sink.write(github ? [...(await import('./ci')).githubTestReport(io, files, text)].join('') : text);
    }
    return failed > 0 ? EXIT.findings : EXIT.ok;
  },
};
