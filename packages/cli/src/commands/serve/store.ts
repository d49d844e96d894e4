/**
 * The records `netpolicy serve` answers from: a directory read on every request (so edits show
 * up at once). Layout (docs/serve.md):
 *
 *     tokens.json                                   {"tokens":[{"token","name","expires_at"?,"revoked"?}]}
 *     outage.json (optional)                        {"operations":["sbom"|"network-trace"|"artifacts"],"retry_after":N}
 *     jobs/<provider>/<OWNER>/<REPO>/<job_id>/job.json        {"status":"success","terminal":true}
 *     jobs/<provider>/<OWNER>/<REPO>/<job_id>/sbom.cdx.json   CycloneDX 1.7 JSON
 *     jobs/<provider>/<OWNER>/<REPO>/<job_id>/trace.json      network trace document (D1)
 *     artifacts/<kind>/<alg>-<hex>.json                       artifact record (D2), oci_manifest / oci_index
 *     artifacts/ci_cache/<OWNER>/<REPO>/sha256-<hex>.json     artifact record (D2), ci_cache
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export type Operation = 'sbom' | 'network-trace' | 'artifacts';

export interface TokenEntry {
  token?: string;
  /** Alternative to `token`: hex SHA-256 of the token, so the file need not hold the secret. */
  sha256?: string;
  name?: string;
  expires_at?: string;
  revoked?: boolean;
}

export type TokenCheck =
  | { ok: true; name: string }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'expired' | 'revoked' }
  /** tokens.json exists but cannot be used (not JSON, not `{"tokens":[...]}`): no token can be checked. */
  | { ok: false; reason: 'store'; message: string };

export interface JobRecord {
  status?: string;
  terminal?: boolean;
}

/** Result of reading a stored file: its text, absent, or unreadable for another reason. */
export type Stored = { state: 'ok'; text: string } | { state: 'absent' } | { state: 'error'; message: string };

export class Store {
  constructor(readonly dir: string) {}

  async read(...parts: string[]): Promise<Stored> {
    try {
      return { state: 'ok', text: await readFile(join(this.dir, ...parts), 'utf8') };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'absent' };
      return { state: 'error', message: code ?? 'read error' };
    }
  }

  async readJson<T>(...parts: string[]): Promise<{ state: 'ok'; value: T } | { state: 'absent' } | { state: 'error'; message: string }> {
    const stored = await this.read(...parts);
    if (stored.state !== 'ok') return stored;
    try {
      return { state: 'ok', value: JSON.parse(stored.text) as T };
    } catch (error) {
      return { state: 'error', message: `${parts.join('/')} is not JSON: ${(error as Error).message}` };
    }
  }

  /** Checks an `Authorization` header value against tokens.json. */
  async checkToken(header: string | undefined, now = Date.now()): Promise<TokenCheck> {
    if (header === undefined || header.trim() === '') return { ok: false, reason: 'missing' };
    const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
    if (!m) return { ok: false, reason: 'malformed' };
    const presented = createHash('sha256').update(m[1]).digest();
    const file = await this.readJson<{ tokens?: unknown }>('tokens.json');
    if (file.state === 'error') return { ok: false, reason: 'store', message: file.message };
    if (file.state === 'ok' && !(isObject(file.value) && Array.isArray(file.value.tokens))) {
      return { ok: false, reason: 'store', message: 'tokens.json is not {"tokens": [...]}' };
    }
    const entries = file.state === 'ok' ? (file.value.tokens as unknown[]) : [];
    // Entries that are not objects, or whose members have the wrong type, match no token.
    for (const entry of entries.filter(isObject) as TokenEntry[]) {
      const stored =
        typeof entry.sha256 === 'string' && /^[0-9a-fA-F]{64}$/.test(entry.sha256) ? Buffer.from(entry.sha256, 'hex') :
        typeof entry.token === 'string' && entry.token !== '' ? createHash('sha256').update(entry.token).digest() :
        undefined;
      if (!stored || stored.length !== presented.length || !timingSafeEqual(stored, presented)) continue;
      if (entry.revoked === true) return { ok: false, reason: 'revoked' };
      if (entry.expires_at !== undefined && !(Date.parse(String(entry.expires_at)) > now)) return { ok: false, reason: 'expired' };
      return { ok: true, name: typeof entry.name === 'string' ? entry.name : 'token' };
    }
    return { ok: false, reason: 'unknown' };
  }

  /** Whether outage.json declares `operation` unavailable, with the Retry-After to send. */
  async outage(operation: Operation): Promise<{ retryAfter?: number } | undefined> {
    const file = await this.readJson<unknown>('outage.json');
    if (file.state === 'absent') return undefined;
    // Present but not JSON, or not an object: every operation is down (the file says "outage").
    const v = file.state === 'ok' && isObject(file.value) ? file.value : {};
    const ops = v.operations;
    if (Array.isArray(ops) && !ops.includes(operation)) return undefined;
    // Retry-After is delta-seconds (RFC 9110 10.2.3): a non-negative integer, else not sent.
    const r = v.retry_after;
    return { retryAfter: typeof r === 'number' && Number.isSafeInteger(r) && r >= 0 ? r : undefined };
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
