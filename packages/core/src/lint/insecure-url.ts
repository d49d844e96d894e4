/** `insecure-url`: a source URL (urls, indexUrl, downloadUrl, https[].baseUrl) using plain `http://`. */
import type { LintFinding, LintRule } from './types';
import { parseUrl, sourceUrls, viewOf } from './walk';

export const insecureUrl: LintRule = {
  code: 'insecure-url',
  description: 'A source URL uses http://: downloads can be read and altered in transit.',
  check(context) {
    const findings: LintFinding[] = [];
    for (const ref of sourceUrls(viewOf(context))) {
      // Only an http:// text can parse with scheme http: the others need not be parsed.
      if (!ref.url.startsWith('http://') || !parseUrl(ref.url)) continue;
      const secure = `https://${ref.url.slice('http://'.length)}`;
      findings.push({
        code: 'insecure-url',
        pointer: ref.pointer,
        message: `\`${ref.url}\` uses plain http://: anything on the path can read or replace what the job downloads. Use \`${secure}\` if the server offers HTTPS.`,
        data: { kind: 'replace', value: secure, title: `Change to ${secure}` },
      });
    }
    return findings;
  },
};
