/**
 * What each kind of inlay hint says about a value (a CIDR's address count, a port's service, a
 * preset's description in a few words), the cap of one answer, and the interface the readings of a
 * policy (inlay-hint-items.ts, inlay-hint-spans.ts, the tree in inlay-hints.ts) report values to.
 */
import { escapeControl } from '@netpolicy/core';
import { serviceOfPort } from './well-known-ports';

/**
 * At most this many hints in one answer (a range over a whole huge policy still answers fast).
 * @public
 */
export const MAX_INLAY_HINTS = 5000;

/**
 * How many addresses a CIDR holds, in words (`16,777,216 addresses`; IPv6 past 2^53 as `2^64 addresses`); undefined when it is not a CIDR.
 * @public
 */
export function addressCount(cidr: string): string | undefined {
  const m = /^([0-9A-Fa-f:.]+)\/(\d{1,3})$/.exec(cidr);
  if (!m) return undefined;
  const v6 = m[1].includes(':');
  if (!v6 && !/^\d{1,3}(\.\d{1,3}){3}$/.test(m[1])) return undefined;
  const bits = (v6 ? 128 : 32) - Number(m[2]);
  if (bits < 0) return undefined;
  return (COUNTS[v6 ? 1 : 0][bits] ??= countText(v6, bits));
}

/** The words for each prefix's address count, made once each (the locale formatter costs a few microseconds a call). */
const COUNTS: [string[], string[]] = [[], []];

function countText(v6: boolean, bits: number): string {
  if (bits === 0) return '1 address';
  if (v6 && bits > 53) return `2^${bits} addresses`;
  // Thousands separated by commas, as en-US writes them.
  return `${String(2 ** bits).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} addresses`;
}

/** A description in a few words: its first sentence, cut at a word near `max` characters, control and bidi characters escaped. */
export function fewWords(text: string, max = 64): string {
  const first = text.split(/(?<=[.;:])\s/)[0].replace(/[.;:]$/, '').trim();
  const cut = first.length <= max ? first : `${first.slice(0, first.lastIndexOf(' ', max) > 20 ? first.lastIndexOf(' ', max) : max)}…`;
  return escapeControl(cut);
}

/**
 * The service a port usually carries, unless the member the port sits under already says it (a
 * hint that repeats the text is noise: `"ssh": [{ "port": 22 }]` gets none, as TypeScript hides a
 * parameter name the argument already spells).
 */
export function serviceHint(port: unknown, within: string | undefined): string | undefined {
  const service = Number.isInteger(port) ? serviceOfPort(port as number) : undefined;
  return service === within ? undefined : service;
}

/** Deeper than this many members, nothing is hinted (as the tree reading: a path of property names). */
export const MAX_PATH = 8;

/** What a scan reports the values it meets to: a request's hints, or the record of one item's. */
export interface Sink {
  readonly full: boolean;
  /** An item of an array under member `key`, at `depth` members from the root (the array's own member included). */
  leaf(value: unknown, key: string | undefined, depth: number, end: number): void;
  /** The value of a `port` member of an object under member `within` (`"ssh": [{ "port": 22 }]`: `ssh`). */
  port(value: unknown, end: number, within: string | undefined): void;
}
