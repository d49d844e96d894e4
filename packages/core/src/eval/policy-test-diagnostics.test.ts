import { describe, expect, it } from 'vitest';
import { parsePolicyDocument } from '../validate/document';
import { checkPolicyTestFile } from './policy-tests';
import { policyTestFileDiagnostics } from './policy-test-diagnostics';

/** Each diagnostic as [code, the text it covers, message]. */
function check(text: string) {
  const doc = parsePolicyDocument(text, { fileName: 'policy.tests.json' });
  return policyTestFileDiagnostics(doc).map((d) => [d.code, text.slice(d.offset, d.offset + d.length), d.message]);
}

describe('policyTestFileDiagnostics', () => {
  it('finds nothing in a file checkPolicyTestFile accepts', () => {
    const text = '{"policy": "ci.netpolicy.json", "tests": [{"tcp": {"port": 22}, "expect": "deny"}]}';
    expect(check(text)).toEqual([]);
    expect(() => checkPolicyTestFile(JSON.parse(text))).not.toThrow();
  });

  it('places each schema problem at the key or the value', () => {
    const text = '{"tests": [{"expect": "allo", "http": {"url": "https://x"}}, {"expect": "deny"}, {"htp": {}, "tcp": {"port": 70000}, "expect": "deny"}, {"expect": "allow", "tcp": {"port": 1}, "ssh": {"host": "h"}}], "policy": ""}';
    expect(check(text)).toEqual([
      ['invalid-value', '"allo"', '`allo` is not allowed for `tests.0.expect`. Did you mean `allow`? Allowed: `allow`, `deny`.'],
      ['missing-property', '{"expect": "deny"}', 'a test names its access: one of `http`, `tls`, `tcp` or `ssh`'],
      ['unknown-property', '"htp"', '`htp` is not a member of a test. Did you mean `http`? Allowed: `http`, `tcp`, `tls`, `ssh`, `name`, `rule`, `expect`.'],
      ['invalid-value', '70000', '`tests.2.tcp.port` must be a port from 1 to 65535'],
      ['invalid-value', '{"expect": "allow", "tcp": {"port": 1}, "ssh": {"host": "h"}}', 'a test names exactly one access, this one names `tcp` and `ssh`'],
      ['invalid-value', '""', '`policy` must not be an empty string'],
    ]);
  });

  it('reports syntax first and alone', () => {
    expect(check('{"tests": [').map((d) => d[0])).toContain('json-syntax');
    expect(check('{"tests": {}}')).toEqual([['wrong-type', '{}', '`tests` must be an array of tests']]);
  });
});
