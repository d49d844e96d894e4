/**
 * `unmatchable-host-pattern`: a host pattern, or the host of a source URL, that passes the schema but
 * can never match a host name (decisions.md D3): an empty label, a label starting or ending with `-`,
 * a label over 63 characters, a name over 253 characters.
 */
import { isHostPattern, unmatchableHostProblem } from '../formats/host-pattern';
import { isPolicyUrl, parseUrl } from '../eval/url';
import { forEachSourceUrl } from '../policy/rules-read';
import type { LintRule, RuleFinding } from './types';
import { FINE_LABELS, isObject, memberPointer, plainUrlHostEnd, plainUrlHostStart, quote, viewOf } from './walk';
import type { ConnectionEntry, SourceEntry } from './walk';

const patternFinding = (entry: ConnectionEntry | SourceEntry, pattern: string, problem: string, member: string, item: number, leaf?: string): RuleFinding => ({
  pointer: memberPointer(entry, member, item, leaf),
  message: `Host pattern ${quote(pattern)} can never match a host name: ${problem}. Fix the typo; as written this entry allows nothing.`,
});

/**
 * Every label of `text[start..end)` is 1 to 63 characters and neither starts nor ends with `-`, so
 * that unmatchableHostProblem finds nothing (the name is at most 253 characters: plainUrlHostEnd).
 */
function labelsFine(text: string, start: number, end: number): boolean {
  FINE_LABELS.lastIndex = start;
  return FINE_LABELS.test(text) && FINE_LABELS.lastIndex === end;
}

/** FINE_LABELS in any case (host patterns may be written in upper case). */
const FINE_LABELS_ANY_CASE = new RegExp(FINE_LABELS.source, 'iy');

/**
 * A host pattern that is valid (isHostPattern) and has no label problem, told by one native match
 * after the optional `*.`: labels of 1 to 63 letters, digits and inner hyphens, at most 253
 * characters. False means "not known to be fine": the exact checks then decide.
 */
function patternFine(pattern: string): boolean {
  const start = pattern.startsWith('*.') ? 2 : 0;
  if (pattern.length - start > 253) return false;
  FINE_LABELS_ANY_CASE.lastIndex = start;
  return FINE_LABELS_ANY_CASE.test(pattern) && FINE_LABELS_ANY_CASE.lastIndex === pattern.length;
}

export const unmatchableHostPattern: LintRule = {
  code: 'unmatchable-host-pattern',
  description: 'A host pattern or URL host can never match a real host name (empty label, label starting or ending with `-`, label over 63 characters, name over 253).',
  check(context) {
    const findings: RuleFinding[] = [];
    const view = viewOf(context);
    // Every schema-valid host pattern: tls `serverNamePatterns`, tcp `hostPatterns`, git `ssh[].host`.
    // Index loops, and nothing built for the patterns and URLs that have no finding.
    for (let i = 0; i < view.connections.length; i++) {
      const c = view.connections[i];
      const member = c.kind === 'tls' ? 'serverNamePatterns' : c.kind === 'tcp' ? 'hostPatterns' : undefined;
      if (!member) continue;
      const patterns = c.body[member];
      if (!Array.isArray(patterns)) continue;
      for (let j = 0; j < patterns.length; j++) {
        const pattern = patterns[j];
        if (typeof pattern !== 'string' || patternFine(pattern) || !isHostPattern(pattern)) continue;
        const problem = unmatchableHostProblem(pattern);
        if (problem) findings.push(patternFinding(c, pattern, problem, member, j));
      }
    }
    for (let i = 0; i < view.sources.length; i++) {
      const s = view.sources[i];
      const ssh = s.body.ssh;
      if (s.kind !== 'git' || !Array.isArray(ssh)) continue;
      for (let j = 0; j < ssh.length; j++) {
        const t = ssh[j];
        if (!isObject(t) || typeof t.host !== 'string' || patternFine(t.host) || !isHostPattern(t.host)) continue;
        const problem = unmatchableHostProblem(t.host);
        if (problem) findings.push(patternFinding(s, t.host, problem, 'ssh', j, 'host'));
      }
    }
    // URL hosts as the evaluator compares them (lower case, one trailing dot removed); IPv6 literals have no labels.
    let source: SourceEntry;
    const visit = (text: string, member: string, item: number, leaf: string | undefined) => {
      // A plain host whose labels are all fine has nothing to report: checked in place.
      const end = plainUrlHostEnd(text);
      if (end >= 0 && labelsFine(text, plainUrlHostStart(text), end)) return;
      const host = parseUrl(text)?.host;
      if (host === undefined || host.includes(':')) return;
      const problem = unmatchableHostProblem(host);
      if (!problem || !isPolicyUrl(text)) return;
      findings.push({
        pointer: memberPointer(source, member, item, leaf),
        message: `The host of URL ${quote(text)} can never be a host name: ${problem}. Fix the typo; as written this URL allows nothing.`,
      });
    };
    for (let i = 0; i < view.sources.length; i++) {
      source = view.sources[i];
      forEachSourceUrl(source.kind, source.body, visit);
    }
    return findings;
  },
};
