/**
 * The table of denied accesses whose near miss and fix an `Explainer` remembers: the slot of a
 * destination's text and the test that two accesses are the same one. Kept apart from the
 * explainer because it is a cache policy with its own measurements, not part of explaining.
 */
import type { Access } from './access';
import type { DenialFix } from './fix';
import type { NearMiss } from './near-miss';

/**
 * Denied accesses whose near miss and fix are remembered: a table of 512 slots, each holding the
 * last access whose destination text fell in it. Small on purpose: every entry held is copied by
 * the young-generation collector and then promoted, so in a trace whose denials are all distinct
 * a cache of 4,096 cost more than it saved (300,000 distinct URLs: scavenges 0.6 s -> 0.27 s
 * with 256, together with the JSON text cache of the CLI). A job repeats a handful of denied
 * destinations, which it keeps. Not a map: the slot comes from a few characters of the
 * destination, so a denial that is new (most are) costs no hashing of its whole text, no map
 * insertion and no eviction (a map of 256 and its older generation were 6 % of explaining
 * 300,000 distinct denied URLs).
 */
export const DETAIL_SLOTS = 512;

/** The slot of a destination's text: its length and four of its characters, mixed. */
export function detailSlot(text: string): number {
  const n = text.length;
  let h = Math.imul(n ^ text.charCodeAt(n - 1), 0x9e3779b1);
  h = Math.imul(h ^ text.charCodeAt(n - 2), 0x85ebca6b);
  h = Math.imul(h ^ text.charCodeAt(n >> 1), 0xc2b2ae35);
  h = Math.imul(h ^ text.charCodeAt((n * 3) >> 2), 0x27d4eb2f);
  return (h ^ (h >>> 15)) & (DETAIL_SLOTS - 1);
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean => {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/** The same access: every member its near miss and fix depend on. */
export function sameAccess(a: Access, b: Access): boolean {
  switch (a.kind) {
    case 'http': return b.kind === 'http' && a.url === b.url && a.method === b.method && a.remoteIp === b.remoteIp;
    case 'tls': return b.kind === 'tls' && a.serverName === b.serverName && a.port === b.port && a.remoteIp === b.remoteIp && sameList(a.alpn, b.alpn) && sameList(a.hostnames, b.hostnames);
    case 'tcp': return b.kind === 'tcp' && a.port === b.port && a.remoteIp === b.remoteIp && sameList(a.hostnames, b.hostnames);
    case 'ssh': return b.kind === 'ssh' && a.host === b.host && a.port === b.port && a.user === b.user && a.repositoryPath === b.repositoryPath;
  }
}

export interface DenialDetails { fix: DenialFix | null; nearMiss: NearMiss | null }
export interface DetailSlot { access: Access; details: DenialDetails }
