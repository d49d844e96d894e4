/**
 * One grammar for every command: each command declares its options once (`CommandSpec`), and
 * the parser, `--help` and the option tables of docs/cli.md are all made from that declaration,
 * so they cannot drift. Errors are usage errors (exit 2) worded the same way everywhere.
 */
import { statSync, type Stats } from 'node:fs';
import { parseArgs } from 'node:util';
import { UsageError } from './io';
import { didYouMean } from './names';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  default?: string | boolean;
  /** The value's placeholder in help (`FILE`, `N`); for options with `choices`, the choices. */
  value?: string;
  /** Accepted values (checked with one message for every command). */
  choices?: readonly string[];
  help: string;
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** Synopsis lines, without the leading `netpolicy `. */
  synopsis: string[];
  description: string;
  options: Record<string, OptionSpec>;
  /** Positional arguments: their count, and the words allowed when they are not files. */
  operands: { min: number; max?: number; name: string; choices?: readonly string[] };
  examples: string[];
  /** Exit codes this command uses, with their meaning for it. */
  exitCodes: [number, string][];
  /** Environment variables the command reads, with their meaning (help and docs). */
  environment?: [string, string][];
  /** Options refused on purpose, with the reason given (e.g. `--token`: a secret on the command line). */
  refused?: Record<string, string>;
}

/** `--format`: the same names and message in every command. */
export function formatOption(choices: readonly string[], help: string): OptionSpec {
  return { type: 'string', default: 'text', choices, help };
}

/** `-o/--output FILE`: every command that writes a report. */
export const outputOption: OptionSpec = {
  type: 'string', short: 'o', value: 'FILE',
  help: 'Write the report to FILE instead of stdout (atomically: a failed run leaves no partial file; `-` is stdout).',
};

export const presetsOption: OptionSpec = {
  type: 'string', value: 'FILE', help: 'A preset catalog file that fills in or overrides the built-in presets.',
};

export const helpOption: OptionSpec = { type: 'boolean', short: 'h', help: 'Show this help.' };

/** The options of a command, `-h/--help` included (last). */
export function allOptions(spec: CommandSpec): [string, OptionSpec][] {
  return [...Object.entries(spec.options), ['help', helpOption]];
}

export function listWords(words: readonly string[]): string {
  const q = words.map((w) => `\`${w}\``);
  return q.length <= 1 ? q.join('') : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`;
}

type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

/**
 * Parses `args` by the command's declaration. Every problem is a usage error (exit 2) with one
 * wording for every command: an unknown option (with the nearest known one), a missing or empty
 * value, a value that is not one of the choices, a single-valued option given twice with
 * different values, the wrong number of arguments, and `-o FILE` naming one of the inputs.
 */
export function parseCommand(spec: CommandSpec, args: string[]): { values: Values; positionals: string[] } {
  for (const arg of args) {
    if (arg === '--') break;
    const name = /^--([^=]+)/.exec(arg)?.[1];
    if (name !== undefined && spec.refused && Object.hasOwn(spec.refused, name)) throw new UsageError(spec.refused[name]);
  }
  const declared = allOptions(spec);
  const options = Object.fromEntries(declared.map(([name, o]) => [name, {
    type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}),
    ...(o.default !== undefined ? { default: o.default } : {}),
  }]));
  let parsed;
  try {
    parsed = parseArgs({ args, options: options as never, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    throw new UsageError(parseErrorMessage(error as Error & { code?: string }, spec));
  }
  const values = parsed.values as Values;
  const seen = new Map<string, string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option') continue;
    const o = Object.hasOwn(spec.options, token.name) ? spec.options[token.name] : undefined;
    if (!o || o.type !== 'string') continue;
    const value = token.value ?? '';
    if (value === '') throw new UsageError(`option --${token.name} needs a value (${valueName(o)}), not an empty string`);
    const before = seen.get(token.name);
    if (!o.multiple && before !== undefined && before !== value) {
      throw new UsageError(`option --${token.name} is given twice (\`${clip(before)}\`, then \`${clip(value)}\`); it takes one value`);
    }
    seen.set(token.name, value);
  }
  for (const [name, o] of Object.entries(spec.options)) {
    if (!o.choices) continue;
    const given = values[name];
    for (const v of Array.isArray(given) ? given : given === undefined ? [] : [given]) {
      if (!o.choices.includes(String(v))) throw new UsageError(`option --${name} must be ${listWords(o.choices)}, not \`${clip(String(v))}\`${didYouMean(String(v), o.choices)}`);
    }
  }
  const { min, max, name, choices } = spec.operands;
  const n = parsed.positionals.length;
  const count = (k: number) => `${k} argument${k === 1 ? '' : 's'}`;
  if (n < min) throw new UsageError(n === 0 || (min === 1 && max === undefined) ? `missing argument${min > 1 ? 's' : ''} ${name}` : `expected ${name}: ${count(min)}${max === min ? '' : ' or more'}, got ${n}`);
  if (max !== undefined && n > max) {
    throw new UsageError(max === 0 ? `unexpected argument \`${clip(parsed.positionals[0])}\`` : `too many arguments: expected ${name}, ${max === min ? count(max) : `at most ${count(max)}`}, got ${n}`);
  }
  for (const p of parsed.positionals) {
    if (p === '') throw new UsageError(`an argument is an empty string; expected ${name}`);
    if (choices && !choices.includes(p)) throw new UsageError(`the argument must be ${listWords(choices)}, not \`${clip(p)}\`${didYouMean(p, choices)}`);
  }
  if (spec.options.output) refuseOutputOverInput(values, parsed.positionals, spec);
  return { values, positionals: parsed.positionals };
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function valueName(o: OptionSpec): string {
  return o.choices ? o.choices.join('|') : o.value ?? 'VALUE';
}

/**
 * `-o FILE` must not name a file the command reads (`explain --policy p.json -o p.json` would
 * replace the policy with the report): refused before anything is read or written. Inputs are the
 * operands (when they are files) and the values of the other string options; files compare by
 * device and inode, so another spelling or a link to the same file is caught too.
 */
function refuseOutputOverInput(values: Values, positionals: string[], spec: CommandSpec): void {
  const output = values.output;
  if (typeof output !== 'string' || output === '-') return;
  const target = fileId(output);
  if (!target?.isFile()) return;
  // Operand names by position: `OLD NEW (two policy files)` -> OLD, NEW; `TRACE (...)` -> TRACE for each.
  const words = spec.operands.name.split(' (')[0].split(' ');
  const inputs: [string, string][] = spec.operands.choices ? [] : positionals.map((p, i) => [p, words[Math.min(i, words.length - 1)]]);
  for (const [name, o] of Object.entries(spec.options)) {
    if (name === 'output' || o.type !== 'string' || o.choices) continue;
    const v = values[name];
    for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) inputs.push([String(one), `--${name}`]);
  }
  for (const [path, role] of inputs) {
    if (path === '-') continue;
    const id = fileId(path);
    if (id && id.dev === target.dev && id.ino === target.ino) {
      throw new UsageError(`option --output names ${clip(output)}, which is also an input (${role}); write the report to another file`);
    }
  }
}

function fileId(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function parseErrorMessage(error: Error & { code?: string }, spec: CommandSpec): string {
  const m = error.message;
  const option = /'(-{1,2}[^' ]+)/.exec(m)?.[1];
  const declared = allOptions(spec);
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const typed = (option ?? m).replace(/=.*$/s, '');
      const names = declared.flatMap(([n, o]) => [`--${n}`, ...(o.short ? [`-${o.short}`] : [])]);
      return `unknown option \`${clip(typed)}\`${typed.startsWith('--') ? didYouMean(typed, names.filter((n) => n.startsWith('--'))) : ''}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = /'--([a-z-]+)/.exec(m)?.[1] ?? /--([a-z-]+)/.exec(m)?.[1];
      const o = declared.find(([n]) => n === name)?.[1];
      if (o?.type === 'boolean') return `option --${name} takes no value`;
      // `--port -1`: Node will not take a value that starts with `-` after a space.
      if (/ambiguous/.test(m)) return `option --${name} needs a value (${o ? valueName(o) : 'VALUE'}); for a value that starts with \`-\`, write --${name}=VALUE`;
      return `option --${name ?? '?'} needs a value${o ? ` (${valueName(o)})` : ''}`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument \`${clip(/'([^']*)'/.exec(m)?.[1] ?? m)}\``;
    default:
      return m.split('\n')[0].replace(/\. To specify.*$/s, '');
  }
}

function optionLabel(name: string, o: OptionSpec): string {
  const value = o.type === 'string' ? ` ${o.choices ? o.choices.join('|') : o.value ?? 'VALUE'}` : '';
  return `${o.short ? `-${o.short}, ` : ''}--${name}${value}`;
}

function optionHelp(o: OptionSpec): string {
  const extra = [o.multiple ? 'Repeatable.' : '', typeof o.default === 'string' ? `Default: ${o.default}.` : ''].filter(Boolean);
  return [o.help, ...extra].join(' ');
}

/** `--help` text. */
export function usageText(spec: CommandSpec): string {
  const rows = allOptions(spec).map(([name, o]) => [optionLabel(name, o), optionHelp(o)] as const);
  const width = Math.min(30, Math.max(...rows.map(([l]) => l.length)));
  const options = rows.map(([label, help]) => {
    const lines = wrap(help, 96 - width - 4);
    const first = label.length > width ? [`  ${label}`, `  ${' '.repeat(width)}  ${lines[0]}`] : [`  ${label.padEnd(width)}  ${lines[0]}`];
    return [...first, ...lines.slice(1).map((l) => `  ${' '.repeat(width)}  ${l}`)].join('\n');
  });
  return [
    ...spec.synopsis.map((s, i) => `${i === 0 ? 'Usage:' : '      '} netpolicy ${s}`),
    '',
    spec.description.trim(),
    '',
    'Options:',
    ...options,
    '',
    ...(spec.environment ? ['Environment:', ...envRows(spec.environment), ''] : []),
    spec.examples.length === 1 ? 'Example:' : 'Examples:',
    ...spec.examples.map((e) => `  ${e}`),
    '',
    ...wrap(`Exit codes: ${spec.exitCodes.map(([c, m]) => `${c} ${m}`).join('; ')}.`, 96),
    'Docs: docs/cli.md',
    '',
  ].join('\n');
}

function envRows(env: [string, string][]): string[] {
  const width = Math.min(30, Math.max(...env.map(([n]) => n.length)));
  return env.flatMap(([name, help]) => {
    const lines = wrap(help, 96 - width - 4);
    const first = name.length > width ? [`  ${name}`, `  ${' '.repeat(width)}  ${lines[0]}`] : [`  ${name.padEnd(width)}  ${lines[0]}`];
    return [...first, ...lines.slice(1).map((l) => `  ${' '.repeat(width)}  ${l}`)];
  });
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

/** The generated part of a command's section in docs/cli.md: its options and exit codes. */
export function docsBlock(spec: CommandSpec): string {
  return [
    '```', ...spec.synopsis.map((s) => `netpolicy ${s}`), '```', '',
    optionTable(spec), '',
    ...(spec.environment ? ['| Environment variable | Meaning |', '|---|---|', ...spec.environment.map(([n, h]) => `| \`${n}\` | ${h.replace(/\|/g, '\\|')} |`), ''] : []),
    '| Exit code | Meaning |', '|---|---|', ...spec.exitCodes.map(([c, m]) => `| ${c} | ${m} |`), '',
    spec.examples.length === 1 ? 'Example:' : 'Examples:', '', '```sh', ...spec.examples, '```',
  ].join('\n');
}

/** The Markdown option table of docs/cli.md. */
export function optionTable(spec: CommandSpec): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| Option | Meaning |',
    '|---|---|',
    ...allOptions(spec).map(([name, o]) => `| \`${cell(optionLabel(name, o))}\` | ${cell(optionHelp(o))} |`),
  ].join('\n');
}
