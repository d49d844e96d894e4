/**
 * Policy tests (in the spirit of Tailscale's ACL tests): accesses with the verdict the policy
 * must give, and optionally the deciding rule. Format: schemas/policy-tests.schema.json.
 */
import { policyTestsValidator } from '../generated/validators-policy-tests';
import type { Policy } from '../policy/types';
import type { Access, Decision } from './access';
import { describeAccess } from './access';
import { compiledFor } from './evaluate';
import { describeValue, InputError } from '../validate/input-error';
import type { EvalOptions } from './rules';

/**
 * One policy test: an access (exactly one of `http`, `tls`, `tcp`, `ssh`), the verdict the policy
 * must give it and, optionally, the rule that must decide it (`/sources/N`, `preset:NAME`, `default`).
 * @public
 */
export interface PolicyTest {
  /** Shown in results; the access described when absent. */
  name?: string;
  http?: { method?: string; url: string; remoteIp?: string };
  tls?: { serverName?: string; port: number; alpn?: string[]; remoteIp?: string; hostnames?: string[] };
  tcp?: { port: number; remoteIp?: string; hostnames?: string[] };
  ssh?: { host: string; port?: number; user?: string; repositoryPath?: string };
  expect: 'allow' | 'deny';
  rule?: string;
}

/**
 * A policy test file (schemas/policy-tests.schema.json), once `checkPolicyTestFile` has accepted it.
 * @public
 */
export interface PolicyTestFile {
  /** The policy under test, relative to the test file's folder (`bindPolicyTests`); without it, the only policy of that folder. */
  policy?: string;
  tests: PolicyTest[];
}

/**
 * The outcome of one policy test: the access, what was expected, what the policy decided, and whether they match.
 * @public
 */
export interface PolicyTestResult {
  index: number;
  name: string;
  access: Access;
  expect: 'allow' | 'deny';
  expectRule?: string;
  actual: Decision;
  passed: boolean;
  /** Why it failed, in one sentence. */
  message?: string;
}

/**
 * Thrown by `checkPolicyTestFile` for a document that is not a policy test file (the message lists the first problems).
 * @public
 */
export class PolicyTestFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyTestFileError';
  }
}

/**
 * Checks a parsed test file against the schema; throws with every problem listed.
 * @public
 */
export function checkPolicyTestFile(data: unknown): PolicyTestFile {
  if (!policyTestsValidator(data)) {
    const problems = (policyTestsValidator.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (\`${(e.params as { additionalProperty: string }).additionalProperty}\`)` : ''}`);
    throw new PolicyTestFileError(`not a policy test file: ${problems.join('; ')}`);
  }
  return data as PolicyTestFile;
}

/** The access a test describes (an `http` test's method defaults to GET, an `ssh` test's port to 22). */
export function accessOfTest(t: PolicyTest): Access {
  if (t.http) return { kind: 'http', method: t.http.method ?? 'GET', url: t.http.url, remoteIp: t.http.remoteIp };
  if (t.tls) return { kind: 'tls', serverName: t.tls.serverName, alpn: t.tls.alpn, remoteIp: t.tls.remoteIp, port: t.tls.port, hostnames: t.tls.hostnames };
  if (t.tcp) return { kind: 'tcp', remoteIp: t.tcp.remoteIp, port: t.tcp.port, hostnames: t.tcp.hostnames };
  const s = t.ssh!;
  return { kind: 'ssh', host: s.host, port: s.port ?? 22, user: s.user, repositoryPath: s.repositoryPath };
}

/**
 * Evaluates every test of a file against a policy, in order; a failed test's `message` says why in one sentence.
 * @public
 */
export function runPolicyTests(policy: Policy, file: PolicyTestFile, options: EvalOptions = {}): PolicyTestResult[] {
  const compiled = compiledFor(policy, options, 'runPolicyTests');
  if (typeof file !== 'object' || file === null || !Array.isArray(file.tests)) {
    throw new InputError(`runPolicyTests: file must be a policy test file (checkPolicyTestFile of its parsed JSON), got ${describeValue(file)}${typeof file === 'object' && file !== null && !Array.isArray(file) ? ' without a `tests` array' : ''}`, 'file');
  }
  return file.tests.map((t, index) => {
    const access = accessOfTest(t);
    const actual = compiled.evaluate(access);
    const verdictOk = actual.verdict === t.expect;
    const ruleOk = t.rule === undefined || t.rule === actual.rule;
    const passed = verdictOk && ruleOk;
    const name = t.name ?? describeAccess(access);
    let message: string | undefined;
    if (!verdictOk) message = `expected ${t.expect}, got ${actual.verdict} (decided by ${actual.rule === 'default' ? 'the default' : actual.rule}${actual.certain ? '' : ', uncertain: an opaque preset is enabled'})`;
    else if (!ruleOk) message = `expected ${t.expect} by ${t.rule}, got ${actual.verdict} by ${actual.rule}`;
    return { index, name, access, expect: t.expect, expectRule: t.rule, actual, passed, message };
  });
}
