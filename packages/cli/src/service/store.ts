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

export type TokenCheck = { ok: true; name: string } | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'expired' | 'revoked' };

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
    const file = await this.readJson<{ tokens?: TokenEntry[] }>('tokens.json');
    const entries = file.state === 'ok' && Array.isArray(file.value.tokens) ? file.value.tokens : [];
    for (const entry of entries) {
      const stored = entry.sha256 ? Buffer.from(entry.sha256, 'hex') : entry.token ? createHash('sha256').update(entry.token).digest() : undefined;
      if (!stored || stored.length !== presented.length || !timingSafeEqual(stored, presented)) continue;
      if (entry.revoked) return { ok: false, reason: 'revoked' };
      if (entry.expires_at !== undefined && !(Date.parse(entry.expires_at) > now)) return { ok: false, reason: 'expired' };
      return { ok: true, name: entry.name ?? 'token' };
    }
    return { ok: false, reason: 'unknown' };
  }

  /** Whether outage.json declares `operation` unavailable, with the Retry-After to send. */
  async outage(operation: Operation): Promise<{ retryAfter?: number } | undefined> {
    const file = await this.readJson<{ operations?: string[]; retry_after?: number }>('outage.json');
    if (file.state !== 'ok') return undefined;
    const ops = file.value.operations;
    if (Array.isArray(ops) && !ops.includes(operation)) return undefined;
    return { retryAfter: typeof file.value.retry_after === 'number' ? file.value.retry_after : undefined };
  }
}
