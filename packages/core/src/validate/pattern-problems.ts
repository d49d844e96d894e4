/** Why a text breaks the URL or the host-pattern rule (docs/decisions.md D3), in plain words: the reason part of `invalid-url` and `invalid-host-pattern` messages. */

export function urlProblem(text: string): string {
  const scheme = /^https?:\/\//.exec(text);
  if (!scheme) {
    const other = /^([A-Za-z][A-Za-z0-9+.-]{0,20}):/.exec(text);
    return other ? `the scheme must be http:// or https://, not ${other[1]}://` : 'it must start with http:// or https://';
  }
  const rest = text.slice(scheme[0].length);
  const slash = rest.indexOf('/');
  const host = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash);
  if (host.length === 0) return 'the host is empty';
  if (host.includes('@')) return 'user information (`user@`) is not allowed in the host part';
  if (host.includes('?') || path.includes('?')) return 'a query (`?...`) is not allowed';
  if (host.includes('#') || path.includes('#')) return 'a fragment (`#...`) is not allowed';
  return 'it does not match the URL rule: http(s)://host[/path], no query, fragment or user information';
}

export function hostPatternProblem(text: string): string {
  if (text.length === 0) return 'the pattern is empty';
  if (/\s/.test(text)) return 'whitespace is not allowed';
  const star = text.indexOf('*');
  if (star > 0 || (star === 0 && text[1] !== '.') || text.indexOf('*', star + 1) > 0) {
    return 'a wildcard is only allowed as a leading `*.` (as in `*.example.com`)';
  }
  const body = text.startsWith('*.') ? text.slice(2) : text;
  if (body.length === 0) return 'nothing follows `*.`';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return 'a host pattern is a host name, not a URL: drop the scheme';
  if (body.includes('/')) return 'a host pattern is a host name without a path or port';
  if (body.includes(':')) return 'a host pattern has no port (ports go in `ports`)';
  const bad = /[^A-Za-z0-9.-]/.exec(body);
  if (bad) return `character \`${bad[0]}\` is not allowed (letters, digits, dots and hyphens)`;
  return 'it must start and end with a letter or digit';
}
