/** `insecure-url`: a source URL (urls, indexUrl, downloadUrl, https[].baseUrl) using plain `http://`. */
import type { LintRule, RuleFinding } from './types';
import { isPolicyUrl } from '../eval/url';
import { sourceUrls, viewOf, refPointer } from './walk';

export const insecureUrl: LintRule = {
  code: 'insecure-url',
  description: 'A source URL uses http://: downloads can be read and altered in transit.',
  check(context) {
    const findings: RuleFinding[] = [];
    for (const ref of sourceUrls(viewOf(context))) {
      if (!ref.url.startsWith('http://') || !isPolicyUrl(ref.url)) continue;
      const secure = `https://${ref.url.slice('http://'.length)}`;
      findings.push({
        pointer: refPointer(ref),
        message: `\`${ref.url}\` uses plain http://: anything on the path can read or replace what the job downloads. Use \`${secure}\` if the server offers HTTPS.`,
        data: { kind: 'replace', value: secure, title: `Change to ${secure}` },
      });
    }
    return findings;
  },
};
