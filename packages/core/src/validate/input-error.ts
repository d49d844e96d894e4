/**
 * The error of every public entry point of core handed something it cannot use: a value of the
 * wrong kind from JavaScript (`validate(undefined)`), a policy that does not meet the schema, a
 * trace that cannot be read (`TraceError` extends it). The message says which argument and what is
 * wrong, never a TypeError from deep inside. No imports: the trace reader extends it too.
 */

/**
 * An argument a function of core cannot use: `argument` names it (`text`, `policy`, `trace`, ...);
 * for a policy that is not valid, `code` and `pointer` are those of its first schema diagnostic.
 * @public
 */
export class InputError extends Error {
  /** The parameter that was refused, e.g. `policy`. */
  readonly argument: string;
  /** For an invalid policy: the diagnostic code of its first problem (e.g. `invalid-value`). */
  readonly code?: string;
  /** For an invalid policy: the JSON Pointer of its first problem (`""` for the whole document). */
  readonly pointer?: string;

  constructor(message: string, argument: string, details: { code?: string; pointer?: string } = {}) {
    super(message);
    this.name = 'InputError';
    this.argument = argument;
    if (details.code !== undefined) this.code = details.code;
    if (details.pointer !== undefined) this.pointer = details.pointer;
  }
}

/** What a value is, in a few words, for a message: `undefined`, `null`, `a number (42)`, `an array`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string': return 'a string';
    case 'number': return `a number (${value})`;
    case 'boolean': return `a boolean (${value})`;
    case 'bigint': return 'a bigint';
    case 'symbol': return 'a symbol';
    case 'function': return 'a function';
    default: return 'an object';
  }
}

/** Throws an `InputError` unless `value` is a string: "`fn`: `argument` must be a string, got …". */
export function expectString(value: unknown, fn: string, argument: string, hint = ''): asserts value is string {
  if (typeof value !== 'string') throw new InputError(`${fn}: ${argument} must be a string, got ${describeValue(value)}${hint}`, argument);
}

/** Throws an `InputError` unless `value` is undefined or a plain object (an options bag). */
export function expectOptions(value: unknown, fn: string, argument = 'options'): void {
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw new InputError(`${fn}: ${argument} must be an object, got ${describeValue(value)}`, argument);
  }
}
