/** `insecure-url`: a source URL (urls, indexUrl, downloadUrl, https[].baseUrl) using plain `http://`. */
import type { LintRule, RuleFinding } from './types';
import { isPolicyUrl } from '../eval/url';
import { readOf, urlPointer, viewOf } from './walk';

export const insecureUrl: LintRule = {
  code: 'insecure-url',
  description: 'A source URL uses http://: downloads can be read and altered in transit.',
  check(context) {
    const findings: RuleFinding[] = [];
    // Index loops over the shared readings: nothing is built for the URLs that have no finding.
    const sources = viewOf(context).sources;
    for (let i = 0; i < sources.length; i++) {
      const urls = readOf(sources[i]).urls;
      for (let j = 0; j < urls.length; j++) {
        const url = urls[j].text;
        if (!url.startsWith('http://') || !isPolicyUrl(url)) continue;
        const secure = `https://${url.slice('http://'.length)}`;
        findings.push({
          pointer: urlPointer(sources[i], urls[j]),
          message: `\`${url}\` uses plain http://: anything on the path can read or replace what the job downloads. Use \`${secure}\` if the server offers HTTPS.`,
          data: { kind: 'replace', value: secure, title: `Change to ${secure}` },
        });
      }
    }
    return findings;
  },
};
