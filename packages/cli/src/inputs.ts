/** Inputs shared by explain, suggest, test, diff and init: policies, traces, SBOMs and test files, with exit-2 errors. */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import { indexSbom, isKnownObservation, LineIndex, TraceError, streamTrace, validate, type AnyObservation, type IndexSbomOptions, type Policy, type PresetCatalog, type SbomIndex, type TraceHeader } from '@netpolicy/core';
import { ResolvedNames } from '@netpolicy/core/internal';
import { EXIT, readBounded, readFailure, readTextFile, UsageError } from './io';
import { readInput, shownName } from './report-output';

/** Reads and validates a policy file; any error diagnostic makes it unusable (exit 2, messages on stderr). */
export function loadPolicy(path: string, catalog: PresetCatalog): Policy {
  const text = readInput(path); // `-` reads stdin
  const file = shownName(path);
  const result = validate(text, { fileName: file, catalog, lint: false }) as { value: unknown; diagnostics: { severity: string; message: string; offset: number; code: string; pointer: string }[] };
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0 || typeof result.value !== 'object' || result.value === null || Array.isArray(result.value)) {
    const lines = new LineIndex(text);
    const shown = errors.slice(0, 5).map((d) => {
      const p = lines.positionAt(d.offset);
      return `  ${file}:${p.line + 1}:${p.character + 1} ${d.code}: ${d.message}`;
    });
    const more = errors.length > 5 ? [`  ... and ${errors.length - 5} more (run \`netpolicy check ${file}\`)`] : [];
    throw new UsageError(`${file} is not a valid policy:`, EXIT.usage, [...shown, ...more].map((l) => l.trimStart())); // details: one escaped line each
  }
  return result.value as Policy;
}

/**
 * Reads a CycloneDX JSON SBOM (`netpolicy fetch sbom`) into core's attribution index. Not JSON, or
 * not a CycloneDX document (`bomFormat`), is exit 2; malformed components are skipped by core.
 * `options.policy`: the policy in force, whose sources' URLs are registries and Maven repository
 * bases to attribution (docs/attribution.md).
 */
export function loadSbom(path: string, options: IndexSbomOptions = {}): SbomIndex {
  return indexSbom(readSbomFile(path), options);
}

/** An SBOM already parsed (fetched from the service), checked as a file is, `name` naming it (else exit `code`): the document. */
export function checkSbomValue(value: unknown, name: string, code: number = EXIT.usage): object {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || (value as { bomFormat?: unknown }).bomFormat !== 'CycloneDX') {
    throw new UsageError(`${name}: not a CycloneDX SBOM (a JSON object with "bomFormat": "CycloneDX")`, code);
  }
  return value;
}

/** The parsed SBOM (exit 2 when it is not JSON or not CycloneDX); `-` reads stdin. */
export function readSbomFile(path: string): object {
  const text = readInput(path);
  const file = shownName(path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || (value as { bomFormat?: unknown }).bomFormat !== 'CycloneDX') {
    throw new UsageError(`${file}: not a CycloneDX SBOM (a JSON object with "bomFormat": "CycloneDX")`);
  }
  return value;
}

/** Yields each chunk, then waits for `between` before reading the next (a consumer that pushes back). */
async function* paced<T>(chunks: AsyncIterable<T> | Iterable<T>, between: () => Promise<void> | undefined): AsyncGenerator<T> {
  for await (const chunk of chunks) {
    yield chunk;
    const wait = between();
    if (wait) await wait;
  }
}

/**
 * 64 KiB: a block's text is then a young-generation string that dies young. Blocks of 1 MiB were
 * large objects, each counted against the old generation (explain --only denied of 200,000
 * observations: peak RSS 128 -> 97 MB, CPU 0.90 -> 0.86 s).
 */
const BLOCK = 1 << 16;

/**
 * The text of a file in blocks of 64 KiB, read synchronously and decoded as UTF-8 the way a
 * read stream with `encoding: 'utf8'` decodes it (StringDecoder: a malformed byte becomes U+FFFD,
 * a character cut by a block boundary is completed by the next). Synchronous reads: a read stream
 * hands every block over from a thread of the pool, and on a busy machine explain waited for
 * those hand-overs (idle in its profile), as `JSON.parse(readFileSync(...))` never does.
 */
function* fileText(file: string): Generator<string> {
  const fd = openSync(file, 'r');
  try {
    const block = Buffer.allocUnsafe(BLOCK);
    const decoder = new StringDecoder('utf8');
    // Whether the decoder holds no bytes of a character cut by the end of the last block.
    let clean = true;
    while (true) {
      const n = readSync(fd, block, 0, BLOCK, null);
      if (n === 0) break;
      const bytes = block.subarray(0, n);
      // A block of ASCII alone (most traces are) is its own text: latin1 makes it without the
      // UTF-8 decoder, in a fifth of the time.
      if (clean && isAscii(bytes)) {
        yield block.toString('latin1', 0, n);
        continue;
      }
      const text = decoder.write(bytes);
      // Bytes the decoder keeps for the next block are the last three at most, each >= 0x80.
      clean = true;
      for (let i = Math.max(0, n - 3); i < n; i++) if (block[i] >= 0x80) clean = false;
      if (text) yield text;
    }
    const tail = decoder.end();
    if (tail) yield tail;
  } finally {
    closeSync(fd);
  }
}

/**
 * Streams a trace file observation by observation; a malformed trace is exit 2 naming the file.
 * `between`, when given, is awaited after each chunk (64 KiB from a file) has been read: a writer of
 * the results that cannot keep up holds the reading back, so memory stays bounded.
 */
export async function readTraceFile(file: string, onObservation: (o: AnyObservation) => void, between?: () => Promise<void> | undefined): Promise<TraceHeader> {
  const pace = <T>(chunks: AsyncIterable<T>): AsyncIterable<T> => (between ? paced(chunks, between) : chunks);
  if (file === '-') {
    process.stdin.setEncoding('utf8');
    try {
      return await streamTrace(pace(process.stdin as AsyncIterable<string>), onObservation);
    } catch (error) {
      if (error instanceof TraceError) throw new UsageError(`standard input: ${error.message}`);
      throw error;
    }
  }
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) throw new UsageError(`cannot read ${file}: is a directory, not a file`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    readTextFile(file); // throws the standard "cannot read" message
  }
  try {
    return await streamTrace(between ? paced(fileText(file), between) : fileText(file), onObservation);
  } catch (error) {
    if (error instanceof TraceError) throw new UsageError(`${file}: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code) throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    throw error;
  }
}

/** A trace held as text (fetched from the service): `name` names it in messages. */
export interface TraceText { name: string; text: string }

/** A trace file (`-` is stdin), or a trace held as text. */
export type TraceInput = string | TraceText;

/** Text in pieces of BLOCK characters, so that a consumer that pushes back is waited for. */
function* pieces(text: string): Generator<string> {
  for (let at = 0; at < text.length; at += BLOCK) yield text.slice(at, at + BLOCK);
}

/** readTraceFile for a file or for a trace held as text (malformed: exit 2 naming it). */
export async function readTrace(input: TraceInput, onObservation: (o: AnyObservation) => void, between?: () => Promise<void> | undefined): Promise<TraceHeader> {
  if (typeof input === 'string') return readTraceFile(input, onObservation, between);
  try {
    return await streamTrace(between ? paced(pieces(input.text), between) : pieces(input.text), onObservation);
  } catch (error) {
    if (error instanceof TraceError) throw new UsageError(`${input.name}: ${error.message}`);
    throw error;
  }
}

/**
 * A trace that can be read only once (`-`, a FIFO, `<(…)`), read into memory so that it can be read
 * twice (explain --provenance: the digests first, then the explanation). Bounded as every text
 * input is (MAX_TEXT_INPUT_BYTES); decoded as the streaming reader decodes (a malformed byte is
 * U+FFFD, as `readTrace` of the stream would read it), and named as it would be in messages.
 */
export function traceIntoMemory(path: string): TraceText {
  if (path === '-') return { name: 'standard input', text: readBounded(0, 'standard input').toString('utf8') };
  // A blocking open, as the streaming reader's (`fileText`): a FIFO's writer may write everything
  // and close as soon as a reader appears, which a first non-blocking open (`openInput`) would be.
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${readFailure(error)}`);
  }
  try {
    return { name: path, text: readBounded(fd, path).toString('utf8') };
  } finally {
    closeSync(fd);
  }
}

/** Parses a JSON file (test files); a syntax error is exit 2. */
export function readJsonFile(file: string): unknown {
  const text = readTextFile(file);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The names every DNS answer of a trace file gives each address (D4 counts answers recorded
 * after a connection too): a first pass for diff and suggest. Undefined for stdin, which can be
 * read only once.
 */
export async function readDnsNames(file: string): Promise<Map<string, string[]> | undefined> {
  if (file === '-') return undefined;
  const names = new ResolvedNames();
  await readTraceFile(file, (o) => { if (isKnownObservation(o) && o.protocol === 'dns') names.learn(o); });
  return names.toMap();
}
