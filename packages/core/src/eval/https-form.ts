/**
 * The https form of a plain-http request to a software source: what a fix (fix.ts) and a
 * suggestion (suggest.ts) allow in place of what was recorded. Its own module so that those two
 * do not import each other.
 */
import type { Access } from './access';
import { ecosystemOf } from './recognise';
import { parseUrl, type ParsedUrl } from './url';

/**
 * The https form of a plain-http request to a recognised software source (PyPI, npm, OCI, git...),
 * or undefined. A rule for its http:// URL would be flagged `insecure-url`: suggest and explain's
 * fix propose the https rule instead, and say the job should use https. `parsed`: the request's URL
 * already parsed (null when it does not parse), else it is parsed here.
 */
export function httpsForm(a: Access, parsed?: ParsedUrl | null): Extract<Access, { kind: 'http' }> | undefined {
  if (a.kind !== 'http') return undefined;
  const url = parsed === undefined ? parseUrl(a.url) : parsed;
  if (!url || url.scheme !== 'http' || !ecosystemOf(url)) return undefined;
  const rest = a.url.slice(a.url.indexOf('://') + 3);
  const slash = rest.search(/[/?#]/);
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const host = url.port === 80 ? authority.replace(/:80$/, '') : authority;
  return { ...a, url: `https://${host}${slash < 0 ? '' : rest.slice(slash)}` };
}
