/**
 * One grammar for every command: each command declares its options once (`CommandSpec`), and
 * the parser, `--help` and the option tables of docs/cli.md are all made from that declaration,
 * so they cannot drift. Errors are usage errors (exit 2) worded the same way everywhere.
 */
import { parseArgs } from 'node:util';
import { UsageError } from './io';

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
  /** Positional arguments: their count. */
  operands: { min: number; max?: number; name: string };
  examples: string[];
  /** Exit codes this command uses, with their meaning for it. */
  exitCodes: [number, string][];
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

/** Parses `args` by the command's declaration; unknown options, missing values and bad choices are usage errors. */
export function parseCommand(spec: CommandSpec, args: string[]): { values: Values; positionals: string[] } {
  const options = Object.fromEntries(allOptions(spec).map(([name, o]) => [name, {
    type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}),
    ...(o.default !== undefined ? { default: o.default } : {}),
  }]));
  let parsed;
  try {
    parsed = parseArgs({ args, options: options as never, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(parseErrorMessage(error as Error & { code?: string }, spec));
  }
  const values = parsed.values as Values;
  for (const [name, o] of Object.entries(spec.options)) {
    if (!o.choices) continue;
    const given = values[name];
    for (const v of Array.isArray(given) ? given : given === undefined ? [] : [given]) {
      if (!o.choices.includes(String(v))) throw new UsageError(`option --${name} must be ${listWords(o.choices)}, not \`${String(v)}\``);
    }
  }
  const { min, max, name } = spec.operands;
  const n = parsed.positionals.length;
  const count = (k: number) => `${k} argument${k === 1 ? '' : 's'}`;
  if (n < min) throw new UsageError(min === 1 && max === undefined ? `missing argument ${name}` : `expected ${name}: ${count(min)}${max === min ? '' : ' or more'}, got ${n}`);
  if (max !== undefined && n > max) {
    throw new UsageError(max === 0 ? `unexpected argument \`${parsed.positionals[0]}\`` : `too many arguments: expected ${name}, ${max === min ? count(max) : `at most ${count(max)}`}, got ${n}`);
  }
  return { values, positionals: parsed.positionals };
}

function parseErrorMessage(error: Error & { code?: string }, spec: CommandSpec): string {
  const m = error.message;
  const option = /'(-{1,2}[^' ]+)/.exec(m)?.[1];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const names = allOptions(spec).map(([n]) => `--${n}`);
      const near = option ? names.find((n) => n.startsWith(option.replace(/=.*$/, '').slice(0, 4))) : undefined;
      return `unknown option \`${option ?? m}\`${near ? `. Did you mean \`${near}\`?` : ''}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = /--([a-z-]+)/.exec(m)?.[1];
      const o = name ? spec.options[name] : undefined;
      if (o?.type === 'boolean') return `option --${name} takes no value`;
      return `option --${name ?? '?'} needs a value${o ? ` (${o.choices ? o.choices.join('|') : o.value ?? 'VALUE'})` : ''}`;
    }
    default:
      return m.replace(/\. To specify.*$/s, '');
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
    spec.examples.length === 1 ? 'Example:' : 'Examples:',
    ...spec.examples.map((e) => `  ${e}`),
    '',
    ...wrap(`Exit codes: ${spec.exitCodes.map(([c, m]) => `${c} ${m}`).join('; ')}.`, 96),
    'Docs: docs/cli.md',
    '',
  ].join('\n');
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

/** Node's parseArgs with its errors as usage errors, for commands not yet declared by a `CommandSpec`. */
export function parseCommandArgs<T extends import('node:util').ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const e = error as Error & { code?: string };
    const option = /'(-{1,2}[^' ]+)/.exec(e.message)?.[1];
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown option \`${option ?? e.message}\``);
    throw new UsageError(e.message.replace(/\. To specify.*$/s, ''));
  }
}
