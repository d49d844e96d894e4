import { describe, expect, it } from 'vitest';
import { explain, parsePolicyDocument, type Policy } from '@netpolicy/core';
import { addResult, emptyUsage, traceCodeLenses } from '../src/trace-usage';

/** Lenses of `policy` under a trace of `observations` (as the server builds them). */
async function lenses(policy: object, observations: object[]) {
  const doc = parsePolicyDocument(JSON.stringify(policy, null, 2), { fileName: 'p.netpolicy.json' });
  const usage = emptyUsage();
  usage.traces.push('t.json');
  await explain(doc.value as Policy, JSON.stringify({ observations }), { keep: false, onResult: (r) => addResult(usage, 't.json', r) });
  return traceCodeLenses(doc, usage).map((l) => l.command!.title);
}

describe('trace lenses show trace text, never interpret it', () => {
  it('escapes bidi controls and neutralises $(icon) syntax in hosts', async () => {
    const titles = await lenses({ default: 'allow' }, [
      { sequence: 1, protocol: 'tcp', remoteIp: '192.0.2.1', remotePort: 443, serverName: '\u202egro.sjmpn.yrtsiger', allowed: true },
      { sequence: 2, protocol: 'tcp', remoteIp: '192.0.2.2', remotePort: 443, serverName: '$(pass-filled) all-traffic-verified', allowed: true },
    ]);
    const title = titles.join('\n');
    expect(title).not.toMatch(/\u202e/);
    expect(title).toContain('\\u202egro.sjmpn.yrtsiger');
    expect(title).toContain('\\$(pass-filled) all-traffic-verified');
    expect(title).not.toMatch(/(^|[^\\])\$\(/);
  });

  it('groups by the parsed host, not by splitting the destination at spaces', async () => {
    const titles = await lenses({ default: 'deny', sources: [{ npm: { urls: ['https://h.example'] } }] }, [
      { sequence: 1, protocol: 'http', method: 'GET', url: 'https://h.example/<svg src=x onload=1>', denied: false },
      { sequence: 2, protocol: 'http', method: 'GET', url: 'https://h.example/a b', denied: false },
    ]);
    const lens = titles.find((t) => t.includes('decided here'));
    expect(lens).toMatch(/(^|: )2 traced accesses decided here: h\.example$/);
  });
});
