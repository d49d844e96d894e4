import { describe, expect, test } from 'vitest';
import { rulesUnusedWithDefaultAllow } from './rules-unused-with-default-allow';
import { pointers, run } from './test-helpers';

describe('rules-unused-with-default-allow', () => {
  test('default allow with sources or connections is reported at /default', () => {
    const findings = run(rulesUnusedWithDefaultAllow, { default: 'allow', sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }] });
    expect(findings).toEqual([{
      code: 'rules-unused-with-default-allow',
      pointer: '/default',
      message: expect.stringContaining('1 source never change a verdict'),
      data: { kind: 'replace', value: 'deny', title: 'Change default to "deny"' },
    }]);
    expect(pointers(rulesUnusedWithDefaultAllow, { default: 'allow', connections: [{ icmp: { cidrs: ['192.0.2.1'] } }] })).toEqual(['/default']);
  });

  test('default deny, omitted default, or no rules pass', () => {
    const sources = [{ npm: { urls: ['https://registry.npmjs.org'] } }];
    expect(pointers(rulesUnusedWithDefaultAllow, { default: 'deny', sources })).toEqual([]);
    expect(pointers(rulesUnusedWithDefaultAllow, { sources })).toEqual([]);
    expect(pointers(rulesUnusedWithDefaultAllow, { default: 'allow' })).toEqual([]);
    expect(pointers(rulesUnusedWithDefaultAllow, { default: 'allow', sources: [], connections: [], presets: ['npm'] })).toEqual([]);
    expect(pointers(rulesUnusedWithDefaultAllow, ['allow'])).toEqual([]);
  });
});
