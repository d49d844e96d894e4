/**
 * Records of the hints of each item of a root array, kept by the item's parsed value (see
 * `Recorded`), and the hint objects each record last answered.
 */
import type { InlayHint, Position } from 'vscode-languageserver-types';
import { itemHints } from './inlay-hint-items';
import { MAX_INLAY_HINTS, addressCount, serviceHint, type Sink } from './inlay-hint-values';

/** The kinds of hint an item of a root array may hold (presets are hinted at the root only). */
export const enum Kind { Addresses, Services }

/**
 * One root array item's hints, every kind on, placed from its opening bracket: each hint's line
 * breaks after the bracket and its character (from the bracket on the bracket's line, else from
 * its own line's start). Core's reparse of an edited document shares the value of every item the
 * edit did not touch, and such an item's text is the same in the new version (shifted), so a value
 * met again reuses its record: its text is not scanned again (a keystroke in a 10,000-rule policy
 * scans one rule) and one position is looked up per item, not one per hint.
 */
export interface Recorded {
  /** Four fields per hint (records are read for thousands of items a request: one array each keeps them close in memory). */
  readonly data: readonly (number | string)[];
  /**
   * The hints last answered from this record, frozen (answers share them), with where the item
   * began and which kinds were on: an item that has not moved since (every item but the edited
   * one, on a keystroke that adds no line) answers them again without making new ones.
   */
  hints: readonly InlayHint[] | undefined;
  line: number;
  character: number;
  kinds: number;
}

/** A record's fields, four per hint. */
const LINE = 0, CHARACTER = 1, KIND = 2, LABEL = 3, STRIDE = 4;

/** The record of an item without hints (most rules), shared. */
const NO_HINTS: Recorded = Object.freeze({ data: [], hints: undefined, line: -1, character: -1, kinds: -1 });

/** Records by the item's parsed value (collected with it); null when an item holds more hints than an answer. */
const RECORDED = new WeakMap<object, Recorded | null>();

/** Records an item's hints (the kinds `Hints` gives inside an item, with every option on). */
class Recorder implements Sink {
  readonly record: (number | string)[] = [];
  /** How far line breaks were counted, how many, and where the last line began. */
  private counted: number;
  private breaks = 0;
  private lineStart: number;
  constructor(private readonly text: string, from: number) {
    this.counted = this.lineStart = from;
  }

  get full(): boolean {
    return this.record.length >= MAX_INLAY_HINTS * STRIDE;
  }

  private add(end: number, label: string, kind: Kind): void {
    // Line breaks as LineIndex counts them: \n, \r\n, \r (hints come in order: counted once).
    const { text } = this;
    for (let i = this.counted; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) {
        if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
        this.breaks++;
        this.lineStart = i + 1;
      }
    }
    this.counted = end;
    this.record.push(this.breaks, end - this.lineStart, kind, label);
  }

  leaf(value: unknown, key: string | undefined, _depth: number, end: number): void {
    // No `presets` at depth 1 here: the items under the root member `presets` are not recorded.
    if (key === 'cidrs' && typeof value === 'string') {
      const count = addressCount(value);
      if (count) this.add(end, count, Kind.Addresses);
    } else if (key === 'ports' && typeof value === 'number') this.port(value, end, undefined);
  }

  port(value: unknown, end: number, within: string | undefined): void {
    const service = serviceHint(value, within);
    if (service) this.add(end, service, Kind.Services);
  }
}

/** The record of the item `text[from, to)` under root member `rootKey` whose parsed value is `item`: made on first sight. */
export function recordedHints(item: object, text: string, from: number, to: number, rootKey: string): Recorded | undefined {
  let record = RECORDED.get(item);
  if (record === undefined) {
    const recorder = new Recorder(text, from);
    itemHints(text, from, to, rootKey, from, to, recorder);
    record = recorder.full ? null : recorder.record.length === 0 ? NO_HINTS : { data: recorder.record, hints: undefined, line: -1, character: -1, kinds: -1 };
    RECORDED.set(item, record);
  }
  return record ?? undefined;
}

/** The hints of a record (one with hints) for its item now opening at `at`, of the kinds turned on: those it answered last when the item has not moved, else new ones (frozen, and kept). */
export function recordedAnswer(record: Recorded, at: Position, addresses: boolean, services: boolean): readonly InlayHint[] {
  const kinds = (addresses ? 1 : 0) | (services ? 2 : 0);
  if (record.hints && record.line === at.line && record.character === at.character && record.kinds === kinds) return record.hints;
  const { data } = record;
  const made: InlayHint[] = [];
  for (let i = 0; i < data.length; i += STRIDE) {
    if (data[i + KIND] === Kind.Addresses ? !addresses : !services) continue;
    const line = data[i + LINE] as number, character = data[i + CHARACTER] as number;
    const position = Object.freeze(line === 0 ? { line: at.line, character: at.character + character } : { line: at.line + line, character });
    made.push(Object.freeze({ position, label: data[i + LABEL] as string, paddingLeft: true }));
  }
  record.hints = made;
  record.line = at.line;
  record.character = at.character;
  record.kinds = kinds;
  return made;
}
