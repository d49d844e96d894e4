/** The one place that turns offsets into LSP-style positions (zero-based line, UTF-16 character). */

/**
 * A place in a text as LSP has it: zero-based line and UTF-16 character.
 * @public
 */
export interface Position { line: number; character: number }
/**
 * A span of a text between two positions (end exclusive), as LSP has it.
 * @public
 */
export interface Range { start: Position; end: Position }

/**
 * Offsets to positions and back for one text (diagnostics carry offsets; editors and reporters want lines).
 * @public
 */
export class LineIndex {
  private lineStarts: Int32Array | undefined;
  /** Cheap to create: line starts are found on the first lookup (a clean file needs none). */
  constructor(readonly text: string) {}

  private get starts(): Int32Array {
    return (this.lineStarts ??= lineStarts(this.text));
  }

  positionAt(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0, hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - this.starts[lo] };
  }

  offsetAt(position: Position): number {
    if (position.line >= this.starts.length) return this.text.length;
    if (position.line < 0) return 0;
    const start = this.starts[position.line];
    let end = position.line + 1 < this.starts.length ? this.starts[position.line + 1] : this.text.length;
    // Past the end of a line means the line's end (LSP), before its line break, never inside `\r\n`.
    if (end > start && this.text.charCodeAt(end - 1) === 10) end--;
    if (end > start && this.text.charCodeAt(end - 1) === 13) end--;
    return Math.max(start, Math.min(start + position.character, end));
  }

  range(offset: number, length: number): Range {
    return { start: this.positionAt(offset), end: this.positionAt(offset + length) };
  }

  /** The text of a line without its line break. */
  lineText(line: number): string {
    const start = this.starts[line] ?? this.text.length;
    const end = line + 1 < this.starts.length ? this.starts[line + 1] : this.text.length;
    return this.text.slice(start, end).replace(/\r?\n$|\r$/, '');
  }
}

/**
 * Offsets where lines start (after `\n`, `\r\n` or a lone `\r`), found with `indexOf` jumps: a
 * count, then the offsets in an array of that size (4 bytes a line: a 200 MB policy has 10 million).
 */
function lineStarts(text: string): Int32Array {
  if (text.indexOf('\r') < 0) {
    let lines = 1;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
    const starts = new Int32Array(lines);
    let k = 1;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts[k++] = i + 1;
    return starts;
  }
  const fill = (starts: Int32Array | undefined): number => {
    let k = 1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) {
        if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
        if (starts) starts[k] = i + 1;
        k++;
      }
    }
    return k;
  };
  const starts = new Int32Array(fill(undefined));
  fill(starts);
  return starts;
}
