/**
 * Host patterns (the service's rule, docs/decisions.md D3): `^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$`, checked by a scan.
 * `*.example.com` matches one or more labels before `example.com`, never `example.com` itself.
 */

function isAlnum(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * Whether `text` is a host pattern: a host name, optionally prefixed with `*.` (the schema's `host-pattern` format).
 * @public
 */
export function isHostPattern(text: string): boolean {
  if (typeof text !== 'string') return false;
  // In place after the optional `*.` (no slice: this runs for every host pattern of a policy).
  const start = text.startsWith('*.') ? 2 : 0, n = text.length;
  if (n === start) return false;
  if (!isAlnum(text.charCodeAt(start)) || !isAlnum(text.charCodeAt(n - 1))) return false;
  for (let i = start + 1; i < n - 1; i++) {
    const c = text.charCodeAt(i);
    if (!isAlnum(c) && c !== 46 && c !== 45) return false;
  }
  return true;
}

/** Why a valid host pattern can never match a real host name (undefined when it can). */
export function unmatchableHostProblem(pattern: string): string | undefined {
  // One scan of the labels, no array of them (this runs for every host pattern and URL host of a
  // policy); the same checks in the same order as the reference below.
  const start = pattern.startsWith('*.') ? 2 : 0;
  const n = pattern.length;
  if (n - start > 253) return 'a host name is at most 253 characters';
  let label = start;
  for (let i = start; i <= n; i++) {
    if (i < n && pattern.charCodeAt(i) !== 46) continue;
    if (i === label) return 'it has an empty label (`..`)';
    if (i - label > 63) return `label \`${pattern.slice(label, label + 20)}…\` is longer than 63 characters`;
    if (pattern.charCodeAt(label) === 45 || pattern.charCodeAt(i - 1) === 45) return `label \`${pattern.slice(label, i)}\` starts or ends with \`-\``;
    label = i + 1;
  }
  return undefined;
}

/** unmatchableHostProblem by splitting into labels: the reference of the scan above. */
export function unmatchableHostProblemSlow(pattern: string): string | undefined {
  const body = pattern.startsWith('*.') ? pattern.slice(2) : pattern;
  if (body.length > 253) return 'a host name is at most 253 characters';
  for (const label of body.split('.')) {
    if (label.length === 0) return 'it has an empty label (`..`)';
    if (label.length > 63) return `label \`${label.slice(0, 20)}…\` is longer than 63 characters`;
    if (label.startsWith('-') || label.endsWith('-')) return `label \`${label}\` starts or ends with \`-\``;
  }
  return undefined;
}

/** Normalises an observed host name: lower case, one trailing dot removed. */
export function normaliseHost(host: string): string {
  const h = host.endsWith('.') ? host.slice(0, -1) : host;
  return h.toLowerCase();
}

/**
 * Does host pattern `pattern` match host name `host`?
 * @public
 */
export function matchHostPattern(pattern: string, host: string): boolean {
  const h = normaliseHost(host);
  const p = pattern.toLowerCase();
  if (p.startsWith('*.')) {
    const rest = p.slice(1); // ".example.com"
    return h.length > rest.length && h.endsWith(rest);
  }
  return h === p;
}
