// coverage-keys.ts keeps the keys of each list of repository patterns by the list itself (the
// language server's versions of a document share their rules). A caller may change a list between
// two runs: lint then answers as for a fresh copy of the policy.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lint } from './index';

const pattern = fc.constantFrom('org/app', 'org/app', 'org/*', 'org/**', 'ORG/app', '**', 'team/x', 'team/x', 'team/**', '*/app', 'é/x', '');
const patterns = fc.option(fc.array(pattern, { maxLength: 3 }), { nil: undefined });
const source = fc.tuple(fc.boolean(), fc.constantFrom('https://r.example', 'https://r.example', 'https://R.example/v2', 'https://s.example'), patterns).map(([oci, url, list]) =>
  oci
    ? { oci: { urls: [url], ...(list === undefined ? {} : { repositoryPatterns: list }), operations: ['pull'] } }
    : { git: { ...(list === undefined ? {} : { repositoryPatterns: list }), https: [{ baseUrl: url }] } });
const change = fc.tuple(fc.nat(), fc.nat(), pattern, fc.constantFrom('set', 'push', 'pop', 'clear'));

describe('the repository keys kept by list', () => {
  it('follow a list changed in place between two runs', () => {
    fc.assert(fc.property(fc.array(source, { minLength: 1, maxLength: 8 }), fc.array(change, { minLength: 1, maxLength: 4 }), (sources, changes) => {
      const policy = { default: 'deny', presets: [], sources };
      lint(policy);
      for (const [r, i, text, kind] of changes) {
        const rule = sources[r % sources.length] as { oci?: { repositoryPatterns?: string[] }; git?: { repositoryPatterns?: string[] } };
        const list = (rule.oci ?? rule.git)!.repositoryPatterns;
        if (list === undefined) continue;
        if (kind === 'set' && list.length > 0) list[i % list.length] = text;
        else if (kind === 'push') list.push(text);
        else if (kind === 'pop') list.pop();
        else if (kind === 'clear') list.length = 0;
      }
      expect(lint(policy)).toEqual(lint(structuredClone(policy)));
    }), { numRuns: 1000 });
  });
  it('find a rule that a changed list made a copy of another', () => {
    const sources = [
      { oci: { urls: ['https://r.example'], repositoryPatterns: ['team/x'], operations: ['pull'] } },
      { oci: { urls: ['https://r.example'], repositoryPatterns: ['org/app'], operations: ['pull'] } },
    ];
    const policy = { default: 'deny', presets: [], sources };
    expect(lint(policy).map((f) => f.code)).toEqual([]);
    sources[1].oci.repositoryPatterns[0] = 'team/x';
    expect(lint(policy).map((f) => f.code)).toEqual(['duplicate-rule']);
    expect(lint(policy)).toEqual(lint(structuredClone(policy)));
  });
});

