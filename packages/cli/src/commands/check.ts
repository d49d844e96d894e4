import { parseCommandArgs } from '../args';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from '@netpolicy/core';
import type { Command } from '../command';
import { EXIT, UsageError, readTextFile, useColor, type Io } from '../io';
import { presetCatalogOption } from '../presets-option';
import { toJson, toSarif, toText, type FileResult } from '../check-report';
import { VERSION } from '../version';
import { escapeControl } from '../escape';

const usage = `Usage: netpolicy check [options] FILE|DIR...

Validate and lint network policy files: JSON syntax, the policy schema, and lint rules
(security findings such as metadata endpoints, wide CIDRs, push to any repository).
Files ending .jsonc may hold comments and trailing commas; .json files are strict JSON.
A directory is searched for *.netpolicy.json, *.netpolicy.jsonc and network-policy.json.

Options:
  --format text|json|sarif  Output format (default text). json: {"files":[{"file","diagnostics"}]};
                            sarif: SARIF 2.1.0 for GitHub code scanning.
  --strict                  Warnings fail the check too (exit 1).
  --presets FILE            A preset catalog file filling in or overriding built-in presets.
  -h, --help                Show this help.

Examples:
  netpolicy check policy.json
  netpolicy check --format sarif policies/ > netpolicy.sarif

Exit codes: 0 no errors (warnings allowed unless --strict); 1 errors found (or warnings with
--strict); 2 usage error, unreadable file or bad --presets file.
`;

const POLICY_FILE = /(\.netpolicy\.jsonc?|^network-policy\.json)$/i;

function expand(path: string): string[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return [path]; // reported as unreadable by readTextFile
  }
  if (!stat.isDirectory()) return [path];
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 20) return;
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full, depth + 1);
      else if (POLICY_FILE.test(entry.name)) found.push(full);
    }
  };
  walk(path, 0);
  return found;
}

async function run(args: string[], io: Io): Promise<number> {
  const parsed = parseCommandArgs({
      args,
      allowPositionals: true,
      options: { format: { type: 'string', default: 'text' }, strict: { type: 'boolean', default: false }, presets: { type: 'string' } },
    });
  const { format, strict, presets } = parsed.values;
  if (!['text', 'json', 'sarif'].includes(format as string)) throw new UsageError(`unknown --format \`${format}\`: use text, json or sarif (option)`);
  if (parsed.positionals.length === 0) throw new UsageError('no files given: netpolicy check FILE... (argument)');
  const catalog = presetCatalogOption(presets);

  const results: FileResult[] = [];
  let unreadable = 0;
  for (const arg of parsed.positionals) {
    const files = expand(arg);
    if (files.length === 0) io.stderr.write(`netpolicy check: no policy files found in ${escapeControl(arg)}\n`);
    for (const file of files) {
      let text: string;
      try {
        text = readTextFile(file);
      } catch (error) {
        io.stderr.write(`netpolicy check: ${escapeControl((error as Error).message)}\n`);
        unreadable++;
        continue;
      }
      const { diagnostics } = validate(text, { fileName: file, catalog });
      results.push({ file, text, diagnostics });
    }
  }

  if (format === 'json') io.stdout.write(toJson(results));
  else if (format === 'sarif') io.stdout.write(toSarif(results, VERSION, io.cwd));
  else io.stdout.write(toText(results, { color: useColor(io), excerpt: io.stdout.isTTY === true }));

  if (unreadable > 0) return EXIT.usage;
  const failing = results.some((r) => r.diagnostics.some((d) => d.severity === 'error' || (strict && d.severity === 'warning')));
  return failing ? EXIT.findings : EXIT.ok;
}

export const command: Command = { name: 'check', summary: 'Validate and lint policy files', usage, run };
