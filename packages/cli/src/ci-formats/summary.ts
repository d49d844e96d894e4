/**
 * Markdown for a GitHub job summary (`GITHUB_STEP_SUMMARY`) or a pull-request comment: counts,
 * a table of the findings, the rows past the first few collapsed, and a bound on the whole (GitHub
 * takes at most 1 MiB of summary per step). Pure. Outside text is escaped so that it stays text:
 * no HTML, no links or emphasis it did not ask for, no table cell broken by `|`.
 */
import { escapeControl } from '@netpolicy/core';
import { plural, type CiFinding, type LevelCounts } from './finding';

/** Rows shown before the rest are collapsed under `<details>`. */
export const SHOWN_ROWS = 20;
/** Rows inside `<details>` at most; beyond them the summary only counts. */
export const COLLAPSED_ROWS = 480;
/**
 * Characters of table rows at most (GitHub takes 1 MiB of summary per step; a UTF-16 unit is at
 * most 3 bytes of UTF-8): rows past it are counted, not written.
 */
export const TABLE_CHARS = 300_000;
const CELL_MAX = 300;

/** Outside text as Markdown text: control characters visible, HTML and Markdown punctuation escaped, clipped. */
export function mdText(text: string, max = CELL_MAX): string {
  const clipped = escapeControl(text.length > max ? `${text.slice(0, max)}…` : text);
  return clipped
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~#!()]/g, (c) => `\\${c}`)
    // A bare URL would be made a link (GFM autolinks): a zero-width joiner after `:` keeps it text.
    .replace(/:\/\//g, ':&#8203;//').replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}&#8203;.`);
}

/**
 * Outside text as a code span (paths, destinations, pointers): the fence is one backtick longer
 * than the longest run inside, and `|` is escaped (GFM tables split cells before code spans).
 */
export function mdCode(text: string, max = CELL_MAX): string {
  const clipped = escapeControl(text.length > max ? `${text.slice(0, max)}…` : text).replace(/\|/g, '\\|');
  let longest = 0;
  for (const run of clipped.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  const pad = clipped.startsWith('`') || clipped.endsWith('`') || clipped === '' ? ' ' : '';
  return `${fence}${pad}${clipped}${pad}${fence}`;
}

export interface Table {
  head: string[];
  /** Cells already in Markdown (made with `mdText` / `mdCode`). */
  rows: Iterable<string[]>;
  /** What a row is, for "N more findings" (singular, plural). */
  noun: [string, string];
  /** Where every row can be seen when some are left out. */
  seeAll: string;
}

/**
 * A table whose first `SHOWN_ROWS` rows are open, the next `COLLAPSED_ROWS` inside `<details>`,
 * and the rest only counted. Reads the rows once and keeps at most the rows it writes.
 */
export function boundedTable(table: Table, shown = SHOWN_ROWS, collapsed = COLLAPSED_ROWS): string {
  const header = [`| ${table.head.join(' | ')} |`, `|${table.head.map(() => '---').join('|')}|`];
  const open: string[] = [], folded: string[] = [];
  let total = 0, size = 0;
  for (const row of table.rows) {
    total++;
    if (size >= TABLE_CHARS) continue;
    const line = `| ${row.join(' | ')} |`;
    if (open.length < shown) open.push(line);
    else if (folded.length < collapsed) folded.push(line);
    else continue;
    size += line.length;
  }
  if (total === 0) return '';
  const out = [...header, ...open, ''];
  if (folded.length) out.push('<details>', `<summary>${plural(folded.length, `more ${table.noun[0]}`, `more ${table.noun[1]}`)}</summary>`, '', ...header, ...folded, '', '</details>', '');
  const rest = total - open.length - folded.length;
  if (rest > 0) out.push(`… and ${plural(rest, `more ${table.noun[0]}`, `more ${table.noun[1]}`)} not listed here: see ${table.seeAll}.`, '');
  return out.join('\n');
}

const ICON = { error: '❌ error', warning: '⚠️ warning', notice: 'ℹ️ notice' } as const;

/** `3 errors, 1 warning` (notices only when there are some). */
export function countsLine(counts: LevelCounts): string {
  const parts = [plural(counts.error, 'error'), plural(counts.warning, 'warning')];
  if (counts.notice) parts.push(plural(counts.notice, 'notice'));
  return parts.join(', ');
}

export interface FindingsSummary {
  title: string;
  /** Lines under the title (Markdown, already safe). */
  intro?: string[];
  counts: LevelCounts;
  findings: Iterable<CiFinding>;
  seeAll: string;
}

/** A job summary of findings: title, counts, then the bounded table (Level, Location, Code, Message). */
export function findingsSummary(s: FindingsSummary, shown = SHOWN_ROWS, collapsed = COLLAPSED_ROWS): string {
  const total = s.counts.error + s.counts.warning + s.counts.notice;
  const out = [`## ${s.title}`, '', ...(s.intro ?? []), `**${countsLine(s.counts)}**${total === 0 ? ' ✅' : ''}`];
  const rows = function* () {
    for (const f of s.findings) {
      const where = f.file === undefined ? '' : mdCode(`${f.file}${f.range ? `:${f.range.startLine}:${f.range.startColumn}` : ''}`);
      const message = [mdText(f.message), ...(f.details ?? []).map((d) => mdText(d))].join('<br>');
      yield [ICON[f.level], where, mdCode(f.code, 100), message];
    }
  };
  const table = boundedTable({ head: ['Level', 'Location', 'Code', 'Message'], rows: rows(), noun: ['finding', 'findings'], seeAll: s.seeAll }, shown, collapsed);
  if (table) out.push('', table);
  return out.join('\n') + (table ? '' : '\n');
}
