import { type Dirent, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { applyFixes, isPolicyFile, POLICY_FILE_GLOBS, PROJECT_CONFIG_FILE, validate, validateChunked } from '@netpolicy/core';
import { formatOption, outputOption, parseCommand, presetsOption, usageText, type CommandSpec } from '../../args';
import type { Command } from '../../command';
import { checkWriteBack, drained, EXIT, readFailure, readForWriteBack, UsageError, useColor, writeBack, type FileSnapshot, type Io, type PushbackOut } from '../../io';
import { ConfigFinder } from '../../project-config';
import { AtomicFileOutput, checkOneStdin, readInput, reportSink, shownName, unifiedDiff } from '../../report-output';
import { jsonReport, sarifReport, textReport, type FileResult } from './report';
import { watchAndRerun } from '../../watch';
import { VERSION } from '../../version';
import { escapeControl } from '../../escape';

/** Policies from this size on are checked in batches (`NETPOLICY_BATCHED_FROM` overrides it, for tests). */
const BATCHED_FROM_CHARS = Number(process.env.NETPOLICY_BATCHED_FROM ?? 4 << 20);

const DEFAULT_PATTERNS = POLICY_FILE_GLOBS.map((g) => g.replace(/^\*\*\//, ''));

export const spec: CommandSpec = {
  name: 'check',
  summary: 'Validate and lint policy files (text, JSON or SARIF output)',
  synopsis: ['check [options] FILE|DIR|-...'],
  description: `Validates and lints network policy files: JSON syntax, the policy schema, and lint rules
(security findings such as metadata endpoints, wide CIDRs, push to any repository).
Files ending .jsonc may hold comments and trailing commas; .json files (and standard input,
\`-\`) are strict JSON. A directory is searched for
${DEFAULT_PATTERNS.join(', ')} and the "filePatterns" of netpolicy.config.json; finding no policy file there is an error
(exit 2). The nearest netpolicy.config.json upward from each file, up to the repository root
(the first folder with .git) or the home folder, applies (presetCatalog, filePatterns,
severity), unless --config names one; the config in force is named in every format.`,
  options: {
    format: formatOption(['text', 'json', 'sarif', 'github', 'gitlab', 'junit'], 'Report format: text for people, json (files and diagnostics with LSP ranges) for scripts, sarif (SARIF 2.1.0) for code scanning, github (workflow-command annotations, and a job summary when GITHUB_STEP_SUMMARY is set), gitlab (a Code Quality report), junit (JUnit XML: a test case per file and code). See docs/ci.md.'),
    output: outputOption,
    strict: { type: 'boolean', help: 'Warnings fail the check too (exit 1).' },
    fix: { type: 'boolean', help: 'Apply every fix the diagnostics offer (keeping formatting and comments), print the diff, write each file atomically (only over the file as read; a read-only file, a FIFO or standard input is refused), then report what is left.' },
    presets: presetsOption,
    config: { type: 'string', value: 'FILE', help: `A netpolicy config file to use for every file, instead of the nearest ${PROJECT_CONFIG_FILE} upward (searched up to the repository root or the home folder).` },
    watch: { type: 'boolean', help: 'Check again whenever a file changes, until interrupted (Ctrl-C).' },
  },
  operands: { min: 1, name: 'FILE|DIR|- (policy files or folders to check)' },
  examples: ['netpolicy check policy.netpolicy.json', 'netpolicy check --format sarif -o netpolicy.sarif policies/', 'netpolicy check --fix --strict .', 'cat policy.netpolicy.json | netpolicy check -'],
  exitCodes: [
    [0, 'no errors (warnings allowed unless --strict)'],
    [1, 'errors found (or warnings with --strict)'],
    [2, 'usage error, unreadable file, a folder without policy files or deeper than 40 folders, a bad config or --presets file, or a file --fix cannot write back (read-only, not a regular file, changed meanwhile)'],
  ],
};

/** How deep `check DIR` looks into folders; deeper folders are an error (exit 2) that names the limit, never skipped silently. */
const MAX_FOLDER_DEPTH = 40;

interface Found { files: string[]; skipped: string[]; tooDeep: string[]; unreadable: [string, string][] }

function expand(path: string, configs: ConfigFinder): Found | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined; // reported as unreadable by readInput
  }
  if (!stat.isDirectory()) return undefined;
  const config = configs.forPath(path, true);
  const root = config?.config.root ?? resolve(path);
  const patterns = config?.config.filePatterns ?? [];
  const found: Found = { files: [], skipped: [], tooDeep: [], unreadable: [] };
  const walk = (dir: string, depth: number) => {
    if (depth > MAX_FOLDER_DEPTH) {
      found.tooDeep.push(dir);
      return;
    }
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      found.unreadable.push([dir, readFailure(error)]);
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full, depth + 1);
      else if (entry.name === PROJECT_CONFIG_FILE || !isRegularFile(entry, full)) continue;
      else if (isPolicyFile(relative(root, resolve(full)).split('\\').join('/'), patterns)) found.files.push(full);
      else if (/\.jsonc?$/i.test(entry.name)) found.skipped.push(full);
    }
  };
  walk(path, 0);
  return found;
}

/** A FIFO, socket or device named like a policy is not read (a FIFO with no writer would block the run). */
function isRegularFile(entry: Dirent, full: string): boolean {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return statSync(full).isFile();
  } catch {
    return false;
  }
}

function noPolicyMessage(dir: string, skipped: string[], configFile: string | undefined, patterns: string[]): string {
  const searched = [...DEFAULT_PATTERNS, ...patterns].join(', ');
  const lines = [
    `no policy files in ${dir}: searched for ${searched}${configFile ? ` (filePatterns from ${configFile})` : ''}.`,
  ];
  if (skipped.length > 0) {
    lines.push(`  JSON files there that do not match: ${skipped.slice(0, 5).map(escapeControl).join(', ')}${skipped.length > 5 ? `, and ${skipped.length - 5} more` : ''}.`);
  }
  lines.push(`  Name a policy like policy.netpolicy.json, pass the file itself (netpolicy check ${join(dir, 'FILE')}), or add its pattern to "filePatterns" in ${configFile ?? PROJECT_CONFIG_FILE} (or name a config with --config FILE).`);
  return lines.join('\n');
}

/** A policy argument as `checkOnce` takes it: the files it names (a folder's, found by the walk). */
interface Operand { arg: string; found: Found | undefined; files: string[] }

async function checkOnce(values: Record<string, unknown>, positionals: string[], io: Io): Promise<number> {
  const configs = new ConfigFinder(io.cwd, values.config as string | undefined, values.presets as string | undefined);
  const format = values.format as string;
  const output = values.output as string | undefined;
  const sink = reportSink(io, output);
  const results: FileResult[] = [];
  let failed = 0;
  const diffs: string[] = [];
  let fixed = 0;
  // Every folder is walked before anything is read or written: -o and --fix are checked against
  // the files found (issue 21 items 1 and 5), and a walk that hit a limit is an error.
  const operands: Operand[] = positionals.map((arg) => {
    const found = arg === '-' ? undefined : expand(arg, configs);
    return { arg, found, files: found ? found.files : [arg] };
  });
  refuseOutputOverFound(io.cwd, output, operands, configs);
  if (values.fix) for (const { files } of operands) for (const file of files) checkWriteBack(io.cwd, file, '--fix');
  for (const { arg, found, files } of operands) {
    if (found && (found.tooDeep.length > 0 || found.unreadable.length > 0)) {
      for (const dir of found.tooDeep.slice(0, 3)) io.stderr.write(`netpolicy check: ${escapeControl(dir)}: more than ${MAX_FOLDER_DEPTH} folders deep, not searched (pass that folder itself, or move the policies up)\n`);
      if (found.tooDeep.length > 3) io.stderr.write(`netpolicy check: and ${found.tooDeep.length - 3} more folders past the depth limit\n`);
      for (const [dir, why] of found.unreadable) io.stderr.write(`netpolicy check: cannot read folder ${escapeControl(dir)}: ${why}\n`);
      failed++;
    }
    if (found && found.files.length === 0) {
      if (found.tooDeep.length > 0 || found.unreadable.length > 0) continue;
      const config = configs.forPath(arg, true);
      io.stderr.write(`netpolicy check: ${noPolicyMessage(escapeControl(arg), found.skipped, config?.file, config?.config.filePatterns ?? [])}\n`);
      failed++;
      continue;
    }
    for (const file of files) {
      let text: string;
      let snapshot: FileSnapshot | undefined;
      try {
        if (values.fix) ({ text } = snapshot = readForWriteBack(io.cwd, file, '--fix'));
        else text = readInput(file);
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        io.stderr.write(`netpolicy check: ${escapeControl(error.message)}\n`);
        failed++;
        continue;
      }
      const config = configs.forPath(file);
      const options = { fileName: file === '-' ? 'stdin.json' : file, catalog: configs.catalogFor(config), severity: config?.config.severity };
      if (snapshot) {
        const result = applyFixes(text, { ...options, maxRounds: 20 });
        if (result.text !== text) {
          try {
            writeBack(io.cwd, file, snapshot, result.text);
          } catch (error) {
            if (!(error instanceof UsageError)) throw error;
            io.stderr.write(`netpolicy check: ${escapeControl(error.message)}\n`);
            failed++;
            continue;
          }
          diffs.push(unifiedDiff(file, text, result.text));
          fixed += result.applied;
          text = result.text;
        }
        results.push({ file, text, diagnostics: result.diagnostics });
        continue;
      }
      // A large policy is checked a batch of rules at a time (core's validateChunked: the same
      // diagnostics, without the parsed value of every rule at once; issue 10 item 8).
      const { diagnostics } = text.length >= BATCHED_FROM_CHARS ? validateChunked(text, options) : validate(text, options);
      results.push({ file: shownName(file), text, diagnostics });
    }
  }

  if (values.fix) {
    // The diff goes with a text report on stdout; otherwise to stderr, keeping JSON and SARIF parseable.
    const diffText = diffs.join('');
    const fixedLine = `netpolicy check: applied ${fixed} fix${fixed === 1 ? '' : 'es'} in ${diffs.length} file${diffs.length === 1 ? '' : 's'}\n`;
    if (format === 'text' && sink.toStdout) io.stdout.write(diffText + (diffText ? '\n' : ''));
    else io.stderr.write(diffText);
    io.stderr.write(fixedLine);
  }
  // The configs in force are named in every format (issue 21 item 10): a config found upward changes verdicts.
  const configsUsed = [...new Set(configs.used.map((c) => c.file))];
  if (format === 'json') await writeReport(io, output, namingConfigs(jsonReport(results), 'json', configsUsed));
  else if (format === 'sarif') await writeReport(io, output, namingConfigs(sarifReport(results, VERSION, io.cwd), 'sarif', configsUsed));
  else if (format === 'gitlab' || format === 'junit') {
    if (configsUsed.length > 0) io.stderr.write(`netpolicy check: config in force: ${configsUsed.map(escapeControl).join(', ')}\n`);
    const ci = await import('./ci');
    await writeReport(io, output, format === 'gitlab' ? ci.gitlabCheckReport(io, results) : [ci.junitCheckReport(results, values.strict === true)]);
  } else if (format === 'github') {
    if (configsUsed.length > 0) io.stderr.write(`netpolicy check: config in force: ${configsUsed.map(escapeControl).join(', ')}\n`);
    const ci = await import('./ci');
    await writeReport(io, output, ci.githubCheckReport(io, results, { failed: failed > 0, strict: values.strict === true, configs: configsUsed }));
  }
  else if (results.length > 0 || failed === 0) {
    if (configsUsed.length > 0) io.stderr.write(`netpolicy check: config in force: ${configsUsed.map(escapeControl).join(', ')}\n`);
    const onTerminal = sink.toStdout && io.stdout.isTTY === true;
    await writeReport(io, output, textReport(results, { color: sink.toStdout && useColor(io), excerpt: onTerminal, failed: failed > 0 }));
  }

  if (failed > 0) return EXIT.usage;
  const failing = results.some((r) => r.diagnostics.some((d) => d.severity === 'error' || (values.strict && d.severity === 'warning')));
  return failing ? EXIT.findings : EXIT.ok;
}


/**
 * `-o FILE` naming a file found inside a folder argument, or a config file in force, is refused
 * before anything is read or written (args.ts refuses a file named directly): compared by device
 * and inode, so a link or another spelling is caught too.
 */
function refuseOutputOverFound(cwd: string, output: string | undefined, operands: Operand[], configs: ConfigFinder): void {
  if (output === undefined || output === '-') return;
  let target;
  try {
    target = statSync(resolve(cwd, output));
  } catch {
    return; // a new file cannot be an input
  }
  if (!target.isFile()) return;
  const same = (path: string) => {
    try {
      const st = statSync(resolve(cwd, path));
      return st.dev === target.dev && st.ino === target.ino;
    } catch {
      return false;
    }
  };
  const refuse = (role: string) => { throw new UsageError(`option --output names ${escapeControl(output)}, which is also an input (${role}); write the report to another file`); };
  for (const { arg, found, files } of operands) {
    for (const file of found ? files : []) if (same(file)) refuse(`found in ${escapeControl(arg)}`);
    const config = arg === '-' ? configs.forPath(arg) : found ? configs.forPath(arg, true) : configs.forPath(arg);
    if (config && config.file !== '<stdin>' && same(config.path)) refuse(`the config in force, ${escapeControl(config.file)}`);
    if (config?.config.presetCatalog !== undefined && same(config.config.presetCatalog)) refuse(`the preset catalog of ${escapeControl(config.file)}`);
    for (const file of found ? files : []) {
      const own = configs.forPath(file);
      if (own && own !== config && own.file !== '<stdin>' && same(own.path)) refuse(`the config in force, ${escapeControl(own.file)}`);
    }
  }
}

/**
 * When a config is in force: the JSON report with a top-level `"configs"` member (the config
 * files, as shown), the SARIF log with `runs[0].properties.netpolicyConfigs`, added to the first
 * piece the reporters give (report.ts writes the rest piece by piece). Without one, the
 * reports are as they were.
 */
function* namingConfigs(pieces: Iterable<string>, format: 'json' | 'sarif', configs: string[]): Generator<string> {
  let first = configs.length > 0;
  for (const piece of pieces) {
    if (!first) {
      yield piece;
      continue;
    }
    first = false;
    if (format === 'json' && piece.startsWith('{\n')) yield `{\n  "configs": ${JSON.stringify(configs)},\n${piece.slice(2)}`;
    else if (format === 'sarif' && piece.includes('\n      "columnKind"')) {
      const properties = JSON.stringify({ netpolicyConfigs: configs }, null, 2).replace(/\n/g, '\n      ');
      yield piece.replace('\n      "columnKind"', `\n      "properties": ${properties},\n      "columnKind"`);
    } else throw new Error(`the ${format} report no longer starts as namingConfigs expects`);
  }
}

/**
 * Writes a report as it is produced, in blocks of about 1 MB: to stdout, waiting whenever it pushes
 * back, or to FILE (`-o`, through a temporary file renamed over it at the end). A policy with a
 * million findings never has its whole report in one string.
 */
async function writeReport(io: Io, output: string | undefined, pieces: Iterable<string>): Promise<void> {
  const file = output === undefined || output === '-' ? undefined : new AtomicFileOutput(io.cwd, output);
  try {
    let block = '';
    for (const piece of pieces) {
      block += piece;
      if (block.length < 1 << 20) continue;
      if (file) file.write(block);
      else {
        io.stdout.write(block);
        await drained(io.stdout as PushbackOut);
      }
      block = '';
    }
    if (file) {
      file.write(block);
      file.commit();
    } else if (block) io.stdout.write(block);
  } finally {
    file?.abort();
  }
}

async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand(spec, args);
  checkOneStdin(positionals);
  if (values.fix && positionals.includes('-')) throw new UsageError('--fix writes the fixed file back: give the file, not standard input (`-`)');
  if (values.watch) {
    const configPaths = values.config ? [values.config as string] : [];
    return watchAndRerun('check', [...positionals, ...configPaths], () => checkOnce(values, positionals, io), io);
  }
  return checkOnce(values, positionals, io);
}

export const command: Command = { name: 'check', summary: spec.summary, usage: usageText(spec), spec, run };
