/**
 * Shape checks of response bodies: only what the toolkit needs (D1 trace, D2 artifact record),
 * tolerating unknown members. Each returns a list of reasons; empty means acceptable.
 */
import { JOB_MEMBERS, PROTOCOL_MEMBERS, REQUIRED_MEMBERS, camelOf } from '@netpolicy/core/internal';
import { decimalIdProblem } from './selectors';

type Json = Record<string, unknown>;
type Kind = 'string' | 'boolean' | 'integer' | 'decimal' | 'strings' | 'object' | 'array';

const MAX_REASONS = 20;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeProblem(value: unknown, kind: Kind): string | undefined {
  switch (kind) {
    case 'string': return typeof value === 'string' ? undefined : 'expected a string';
    case 'boolean': return typeof value === 'boolean' ? undefined : 'expected true or false';
    case 'integer': return Number.isInteger(value) ? undefined : 'expected an integer';
    case 'decimal': return typeof value === 'string' && /^(0|[1-9][0-9]*)$/.test(value) ? undefined : 'expected a decimal string';
    case 'strings': return Array.isArray(value) && value.every((s) => typeof s === 'string') ? undefined : 'expected an array of strings';
    case 'object': return isObject(value) ? undefined : 'expected an object';
    case 'array': return Array.isArray(value) ? undefined : 'expected an array';
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 40 ? 'a string' : JSON.stringify(value);
  return typeof value === 'object' ? 'an object' : String(value);
}

class Checker {
  readonly reasons: string[] = [];
  constructor(private readonly acceptCamel: boolean) {}

  fail(path: string, message: string): void {
    if (this.reasons.length < MAX_REASONS) this.reasons.push(path ? `${path}: ${message}` : message);
  }

  /** Looks a member up by its D1/D2 name (and, for traces, its camelCase spelling). */
  get(obj: Json, name: string): { key: string; value: unknown } | undefined {
    if (Object.hasOwn(obj, name)) return { key: name, value: obj[name] };
    const alt = camelOf(name);
    if (this.acceptCamel && alt !== name && Object.hasOwn(obj, alt)) return { key: alt, value: obj[alt] };
    return undefined;
  }

  member(obj: Json, path: string, name: string, kind: Kind, required = false): unknown {
    const found = this.get(obj, name);
    if (!found || found.value === undefined || (found.value === null && !required)) {
      if (required) this.fail(path, `missing member "${name}"`);
      return undefined;
    }
    const problem = typeProblem(found.value, kind);
    if (problem) this.fail(`${path}.${found.key}`, `${problem}, got ${describe(found.value)}`);
    return problem ? undefined : found.value;
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * D1: the network trace document, snake_case or camelCase members (names and types from core's one table).
 * @public
 */
export function checkTraceShape(doc: unknown): string[] {
  const c = new Checker(true);
  if (!isObject(doc)) return ['the network trace must be a JSON object'];
  c.member(doc, '', 'schema_version', 'string');
  const job = c.member(doc, '', 'job', 'object', true) as Json | undefined;
  if (job) {
    for (const [name, kind] of JOB_MEMBERS) {
      const value = c.member(job, 'job', name, kind);
      if ((name === 'job_id' || name === 'run_id') && typeof value === 'string') {
        const p = decimalIdProblem(value);
        if (p) c.fail(`job.${name}`, p);
      }
    }
  }
  const observations = c.member(doc, '', 'observations', 'array', true) as unknown[] | undefined;
  observations?.forEach((obs, i) => {
    const path = `observations[${i}]`;
    if (!isObject(obs)) return c.fail(path, `expected an object, got ${describe(obs)}`);
    const protocol = c.member(obs, path, 'protocol', 'string', true) as string | undefined;
    const at = c.member(obs, path, 'observed_at', 'string', true) as string | undefined;
    if (at !== undefined && !RFC3339.test(at)) c.fail(`${path}.observed_at`, `expected an RFC 3339 time, got ${describe(at)}`);
    c.member(obs, path, 'sequence', 'integer', true);
    const members = protocol !== undefined && Object.hasOwn(PROTOCOL_MEMBERS, protocol) ? PROTOCOL_MEMBERS[protocol] : undefined;
    const required = protocol !== undefined && Object.hasOwn(REQUIRED_MEMBERS, protocol) ? REQUIRED_MEMBERS[protocol] : [];
    // Unknown protocols are kept: a newer service may add observation kinds.
    if (members) for (const [name, kind] of members) c.member(obs, path, name, kind, required.includes(name));
  });
  return c.reasons;
}

const HEX: Record<string, number> = { sha256: 64, sha512: 128 };

function checkArtifactCore(c: Checker, obj: Json, path: string): void {
  c.member(obj, path, 'id', 'string', true);
  const alg = c.member(obj, path, 'digest_algorithm', 'string', true) as string | undefined;
  if (alg !== undefined && !HEX[alg]) c.fail(`${path}.digest_algorithm`, `expected sha256 or sha512, got ${describe(alg)}`);
  const value = c.member(obj, path, 'digest_value', 'string', true) as string | undefined;
  if (value !== undefined && alg && HEX[alg] && !new RegExp(`^[0-9a-fA-F]{${HEX[alg]}}$`).test(value)) {
    c.fail(`${path}.digest_value`, `expected ${HEX[alg]} hexadecimal characters for ${alg}`);
  }
  const kind = c.member(obj, path, 'kind', 'string', true) as string | undefined;
  if (kind !== undefined && !['oci_manifest', 'oci_index', 'ci_cache'].includes(kind)) {
    c.fail(`${path}.kind`, `expected oci_manifest, oci_index or ci_cache, got ${describe(kind)}`);
  }
  const publications = c.member(obj, path, 'publications', 'array', true) as unknown[] | undefined;
  publications?.forEach((pub, i) => checkPublication(c, pub, `${path ? `${path}.` : ''}publications[${i}]`));
}

function checkPublication(c: Checker, pub: unknown, path: string): void {
  if (!isObject(pub)) return c.fail(path, `expected an object, got ${describe(pub)}`);
  c.member(pub, path, 'id', 'string', true);
  const at = c.member(pub, path, 'accepted_at', 'string', true) as string | undefined;
  if (at !== undefined && !RFC3339.test(at)) c.fail(`${path}.accepted_at`, `expected an RFC 3339 time, got ${describe(at)}`);
  c.member(pub, path, 'purl', 'string');
  const job = c.member(pub, path, 'job', 'object', true) as Json | undefined;
  if (job) {
    c.member(job, `${path}.job`, 'id', 'string', true);
    const provider = c.member(job, `${path}.job`, 'provider', 'object', true) as Json | undefined;
    if (provider) {
      c.member(provider, `${path}.job.provider`, 'provider', 'string', true);
      c.member(provider, `${path}.job.provider`, 'job_id', 'decimal', true);
      c.member(provider, `${path}.job.provider`, 'repository', 'string', true);
    }
  }
  const metadata = c.member(pub, path, 'metadata', 'object', true) as Json | undefined;
  if (metadata) {
    const kind = c.member(metadata, `${path}.metadata`, 'kind', 'string', true);
    const names: Record<string, Kind> | undefined =
      kind === 'oci' ? { media_type: 'string', reference: 'string', registry: 'string', repository: 'string' } :
      kind === 'ci_cache' ? { key: 'string', size: 'integer', version: 'string' } : undefined;
    if (names) for (const [name, k] of Object.entries(names)) c.member(metadata, `${path}.metadata`, name, k, true);
  }
}

/**
 * D2: the artifact record (identity, directly contained artifacts, publications). The order of
 * publications (newest first) is the service's promise; it is not a reason to refuse a record.
 * @public
 */
export function checkArtifactRecordShape(doc: unknown): string[] {
  const c = new Checker(false);
  if (!isObject(doc)) return ['the artifact record must be a JSON object'];
  checkArtifactCore(c, doc, '');
  const contents = c.member(doc, '', 'contents', 'array', true) as unknown[] | undefined;
  contents?.forEach((item, i) => {
    const path = `contents[${i}]`;
    if (!isObject(item)) return c.fail(path, `expected an object, got ${describe(item)}`);
    checkArtifactCore(c, item, path);
    c.member(item, path, 'media_type', 'string', true);
    const index = c.member(item, path, 'index', 'integer', true) as number | undefined;
    if (index !== undefined && index < 0) c.fail(`${path}.index`, 'expected a zero-based position');
    const size = c.member(item, path, 'size', 'integer', true) as number | undefined;
    if (size !== undefined && size < 0) c.fail(`${path}.size`, 'expected a size in bytes');
  });
  return c.reasons;
}
