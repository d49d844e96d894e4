/**
 * Explain's words for people: a rule named by its pointer with what it is about, and the sentence
 * that sets the recorded verdict beside the model's. Used by the CLI's renderings of a report.
 */
import type { Policy } from '../policy/types';
import { readConnection, readSource } from '../policy/rules-read';
import type { ExplainResult } from './explain-types';

/**
 * A rule named for people: its pointer (or `preset:<name>`) with its kind and first URL host,
 * host pattern or CIDR, e.g. `/sources/2 (oci registry.example.org)`, `/connections/0 (tls *.example.org)`.
 * @public
 */
export function describeRule(policy: Policy, id: string): string {
  const match = /^\/(sources|connections)\/(\d+)$/.exec(id);
  if (!match) return id === 'default' ? `the default (${policy.default === 'allow' ? 'allow' : 'deny'})` : id;
  const list = (policy as Record<string, unknown>)[match[1]];
  const item = Array.isArray(list) ? list[Number(match[2])] : undefined;
  let what: string | undefined;
  if (match[1] === 'sources') {
    const read = readSource(item);
    if (read) what = `${read.kind}${read.urls[0]?.url ? ` ${read.urls[0].url.host}` : read.ssh[0] ? ` ${read.ssh[0].host}` : ''}`;
  } else {
    const read = readConnection(item);
    if (read) what = `${read.kind}${read.names?.[0] !== undefined ? ` ${read.names[0]}` : read.rawCidrs?.[0] !== undefined ? ` ${read.rawCidrs[0]}` : ''}`;
  }
  return what ? `${id} (${what})` : id;
}

/**
 * One plain sentence comparing the recorded verdict with the model's (D4: both, when they differ).
 * @public
 */
export function verdictSentence(r: ExplainResult): string {
  const rec = r.recorded.verdict === 'none' ? 'recorded: no verdict' :
    `recorded: ${r.recorded.verdict === 'deny' ? 'denied' : 'allowed'}${r.recorded.reason ? ` (${r.recorded.reason})` : ''}${r.recorded.rule ? ` by ${r.recorded.rule}` : ''}`;
  const m = r.model;
  const mod = m.verdict === 'none' ? 'model: no verdict' :
    m.verdict === 'allow' ? `model: allowed by ${m.rule === 'default' ? 'the default (allow)' : m.rule}` :
    `model: denied by the default${m.certain ? '' : ' (uncertain: an enabled opaque preset might allow it)'}`;
  return `${rec}; ${mod}`;
}
