import { describe, expect, it } from 'vitest';
import { languageFor } from '../../src/languages';

describe('languageFor', () => {
  it('gives D6 policy files a netpolicy language, .jsonc and the project file the JSONC one', () => {
    expect(languageFor('/w/ci/build.netpolicy.json')).toBe('netpolicy');
    expect(languageFor('/w/network-policy.json')).toBe('netpolicy');
    expect(languageFor('/w/a/b.netpolicy.jsonc')).toBe('netpolicy-jsonc');
    expect(languageFor('/w/netpolicy.config.json')).toBe('netpolicy-jsonc');
  });

  it('leaves every other JSON file alone', () => {
    for (const p of ['/w/package.json', '/w/tsconfig.json', '/w/network-policy.json.bak', '/w/netpolicy.json', '/w/trace.json', '/w/my-network-policy.json']) {
      expect(languageFor(p), p).toBeUndefined();
    }
  });

  it('adds filePatterns relative to the workspace folder, and bare names anywhere', () => {
    const opts = { root: '/w', filePatterns: ['policies/*.json', 'egress.json'] };
    expect(languageFor('/w/policies/ci.json', opts)).toBe('netpolicy');
    expect(languageFor('/w/other/ci.json', opts)).toBeUndefined();
    expect(languageFor('/w/deep/egress.json', opts)).toBe('netpolicy');
    expect(languageFor('/elsewhere/policies/ci.json', opts)).toBeUndefined();
  });

  it('gives VS Code\'s json/jsonc (where the contributed schema applies) when the server is off', () => {
    expect(languageFor('/w/a.netpolicy.json', { serverEnabled: false })).toBe('json');
    expect(languageFor('/w/a.netpolicy.jsonc', { serverEnabled: false })).toBe('jsonc');
    expect(languageFor('/w/package.json', { serverEnabled: false })).toBeUndefined();
  });

  it('gives policy test files their own language, before filePatterns would make them policies', () => {
    expect(languageFor('/w/policy.tests.json')).toBe('netpolicy-tests');
    expect(languageFor('/w/ci/Build.TESTS.json')).toBe('netpolicy-tests');
    expect(languageFor('/w/policies/ci.tests.json', { root: '/w', filePatterns: ['policies/*.json'] })).toBe('netpolicy-tests');
    expect(languageFor('/w/policies/ci.json', { root: '/w', filePatterns: ['policies/*.json'] })).toBe('netpolicy');
    // The name alone is not a test file (core's isPolicyTestFile); nor a folder named like one.
    for (const p of ['/w/.tests.json', '/w/a.tests.json/policy.json', '/w/tests.json', '/w/a.tests.jsonc']) expect(languageFor(p), p).toBeUndefined();
    expect(languageFor('/w/policy.tests.json', { serverEnabled: false })).toBe('json');
  });
});
