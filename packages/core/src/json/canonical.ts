/** JSON text with object keys sorted: equal for deeply equal values whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  out = '{';
  for (let i = 0; i < keys.length; i++) out += `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:${canonicalJson(obj[keys[i]])}`;
  return `${out}}`;
}

