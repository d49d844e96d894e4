/** `insecure-url`: a source URL (urls, indexUrl, downloadUrl, https[].baseUrl) using plain `http://`. */
import type { LintRule, RuleFinding } from './types';
import { isPolicyUrl } from '../eval/url';
import { forEachSourceUrl } from '../policy/rules-read';
import { memberPointer, viewOf } from './walk';
import type { SourceEntry } from './walk';

export const insecureUrl: LintRule = {
  code: 'insecure-url',
  description: 'A source URL uses http://: downloads can be read and altered in transit.',
  check(context) {
    const findings: RuleFinding[] = [];
    // The URL texts of each source as the reader finds them, with no reading kept: nothing is built
    // for the URLs that have no finding.
    let source: SourceEntry;
    const visit = (url: string, member: string, item: number, leaf: string | undefined) => {
      if (!url.startsWith('http://') || !isPolicyUrl(url)) return;
      const secure = `https://${url.slice('http://'.length)}`;
      findings.push({
        pointer: memberPointer(source, member, item, leaf),
        message: `\`${url}\` uses plain http://: anything on the path can read or replace what the job downloads. Use \`${secure}\` if the server offers HTTPS.`,
        data: { kind: 'replace', value: secure, title: `Change to ${secure}` },
      });
    };
    const sources = viewOf(context).sources;
    for (let i = 0; i < sources.length; i++) {
      source = sources[i];
      forEachSourceUrl(source.kind, source.body, visit);
    }
    return findings;
  },
};
