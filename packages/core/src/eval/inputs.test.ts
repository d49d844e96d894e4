import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { validate } from '../validate/validate';
import { InputError } from '../validate/input-error';
import { TraceError } from '../trace/normalise';
import { parseTrace } from '../trace/reader';
import type { Policy } from '../policy/types';
import { compilePolicy, evaluate } from './evaluate';
import { explain, explainTrace, Explainer } from './explain';
import { diffRules, PolicyDiffer } from './diff';
import { fixFor } from './fix';
import { runPolicyTests } from './policy-tests';
import { suggestFromAccesses, suggestPolicy } from './suggest';
import { defaultPresetCatalog } from '../presets/catalog';

const fixture = (name: string) => readFileSync(new URL(`../../../../fixtures/traces/denials/${name}`, import.meta.url), 'utf8');
const traceText = fixture('trace.json');
const policy: Policy = { default: 'deny', presets: ['pypi'] };
const access = { kind: 'http', method: 'GET', url: 'https://pypi.org/simple/' } as const;

/** The error `f` throws (or undefined). */
function thrown(f: () => unknown): unknown {
  try { f(); } catch (e) { return e; }
  return undefined;
}

/** What an `InputError` says: name, message, argument, code and pointer. */
function said(e: unknown) {
  expect(e).toBeInstanceOf(InputError);
  const i = e as InputError;
  return { name: i.name, message: i.message, argument: i.argument, code: i.code, pointer: i.pointer };
}

describe('an invalid policy at the evaluator is an InputError with its first problem', () => {
  // The case: `sources` an object, where the evaluator used to call forEach on it.
  const invalid = { default: 'deny', sources: { pypi: { urls: ['https://pypi.org'] } } } as unknown as Policy;

  it('explainTrace names the function, the problem and where it is', () => {
    expect(said(thrown(() => explainTrace(invalid, traceText)))).toEqual({
      name: 'InputError', argument: 'policy', code: 'wrong-type', pointer: '/sources',
      message: expect.stringMatching(/^explainTrace: policy is not a valid policy: .+ at \/sources \(wrong-type\)$/),
    });
  });

  it('the message is the one validate gives for the same policy', () => {
    const d = validate(JSON.stringify(invalid)).diagnostics[0]!;
    expect((thrown(() => explainTrace(invalid, traceText)) as InputError).message).toContain(d.message);
  });

  it('an invalid value (not a wrong type)', () => {
    const bad = { default: 'block' } as unknown as Policy;
    expect(said(thrown(() => evaluate(bad, access)))).toMatchObject({ argument: 'policy', code: 'invalid-value', pointer: '/default' });
  });

  it('every entry point: evaluate, compilePolicy, Explainer, fixFor, runPolicyTests, PolicyDiffer, diffRules', () => {
    const cases: [string, () => unknown, string][] = [
      ['evaluate', () => evaluate(invalid, access), 'policy'],
      ['compilePolicy', () => compilePolicy(invalid), 'policy'],
      ['Explainer', () => new Explainer(invalid), 'policy'],
      ['fixFor', () => fixFor(invalid, access), 'policy'],
      ['runPolicyTests', () => runPolicyTests(invalid, { tests: [] }), 'policy'],
      ['PolicyDiffer', () => new PolicyDiffer(policy, invalid), 'newPolicy'],
      ['diffRules', () => diffRules(invalid, policy, defaultPresetCatalog), 'oldPolicy'],
    ];
    for (const [fn, f, argument] of cases) {
      expect(said(thrown(f)), fn).toMatchObject({ argument, code: 'wrong-type', message: expect.stringMatching(new RegExp(`^${fn}: ${argument} is not a valid policy`)) });
    }
  });

  it('explain (async) rejects with it', async () => {
    await expect(explain(invalid, traceText)).rejects.toThrow(/^explain: policy is not a valid policy: .* \(wrong-type\)$/);
    await expect(explain(invalid, traceText)).rejects.toBeInstanceOf(InputError);
  });

  it('a policy of the wrong kind: a string (its text), undefined, an array', () => {
    expect(said(thrown(() => explainTrace('{"default":"deny"}' as unknown as Policy, traceText))).message)
      .toBe('explainTrace: policy must be a policy object, got a string (parse and check it with validate(text) first)');
    expect(said(thrown(() => evaluate(undefined as unknown as Policy, access))).message).toBe('evaluate: policy must be a policy object, got undefined');
    expect(said(thrown(() => compilePolicy([] as unknown as Policy))).message).toBe('compilePolicy: policy must be a policy object, got an array');
  });
});

describe('other arguments of the wrong kind', () => {
  it('a trace that is neither text nor an object', async () => {
    expect(said(thrown(() => explainTrace(policy, 42 as unknown as string))))
      .toMatchObject({ argument: 'trace', message: "explainTrace: trace must be a trace's text, a trace document or a Trace; got a number (42)" });
    await expect(explain(policy, undefined as unknown as string)).rejects.toThrow("explain: trace must be a trace's text, a trace document, a Trace, or chunks of text; got undefined");
    await expect(explain(policy, {} as unknown as string)).rejects.toThrow(/^explain: trace must be .* without `observations`$/);
  });

  it('an object that is not a trace is a TraceError, an InputError too', () => {
    const e = thrown(() => explainTrace(policy, {} as never));
    expect(e).toBeInstanceOf(TraceError);
    expect(said(e)).toMatchObject({ name: 'TraceError', argument: 'trace', message: 'the trace has no `observations` array' });
    expect(said(thrown(() => explainTrace(policy, { observations: {} } as never))).message).toBe('`observations` must be an array');
  });

  it('an access that is not one', () => {
    expect(said(thrown(() => evaluate(policy, undefined as never))).message).toBe('evaluate: access must be an access object, got undefined');
    expect(said(thrown(() => evaluate(policy, { kind: 'ftp' } as never))).message).toBe('evaluate: access needs `kind`: http, tls, tcp or ssh; got "ftp"');
    expect(said(thrown(() => evaluate(policy, { kind: 'http', url: 'https://x.example/' } as never))).message).toBe('evaluate: access of kind http needs `method`, a string; got undefined');
    expect(said(thrown(() => evaluate(policy, { kind: 'tls', port: '443' } as never))).message).toBe('evaluate: access of kind tls needs `port`, an integer; got a string');
    expect(said(thrown(() => suggestFromAccesses([access, { kind: 'ssh', host: 'h' }] as never))).message).toBe('suggestFromAccesses: accesses[1] of kind ssh needs `port`, an integer; got undefined');
  });

  it('suggestPolicy takes a list of observation lists', () => {
    expect(said(thrown(() => suggestPolicy(traceText as never))).message).toMatch(/^suggestPolicy: traces must be an array of lists of observations .*, got a string$/);
    expect(said(thrown(() => suggestPolicy([42] as never))).message).toMatch(/^suggestPolicy: traces\[0\] must be a list of observations .*, got a number \(42\)$/);
    expect(suggestPolicy([parseTrace(traceText).observations]).default).toBe('deny');
  });

  it('options that are not an object', () => {
    expect(said(thrown(() => explainTrace(policy, traceText, 'denied' as never))).message).toBe('explainTrace: options must be an object, got a string');
  });

  it('runPolicyTests needs a test file', () => {
    expect(said(thrown(() => runPolicyTests(policy, [] as never))).message).toMatch(/^runPolicyTests: file must be a policy test file .*, got an array$/);
  });
});

describe('a policy is checked once per object', () => {
  it('a policy from validate is not validated again (changed afterwards, it is not noticed)', () => {
    const r = validate('{ "default": "deny", "presets": ["pypi"] }');
    if (!r.valid) throw new Error('expected a valid policy');
    const p = r.value;
    // Changing a policy after it was checked is the caller's business (as compilePolicy's cache):
    // the check remembers the object, so this invalid change goes through to the evaluator.
    (p as Record<string, unknown>).default = 'allow-everything';
    expect(explainTrace(p, traceText).summary.observations).toBeGreaterThan(0);
  });

  it('an object that passed once passes again without a second run', () => {
    const p: Policy = { default: 'allow' };
    expect(evaluate(p, access).verdict).toBe('allow');
    (p as Record<string, unknown>).default = 42;
    expect(() => evaluate(p, access)).not.toThrow();
  });

  it('a valid policy built in code is accepted', () => {
    expect(explainTrace({ default: 'deny', presets: [] }, traceText).summary.denied).toBeGreaterThan(0);
  });
});
