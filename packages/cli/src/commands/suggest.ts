import { describeAccess, Suggester } from '@netpolicy/core';
import { outputOption, parseCommand, presetsOption, usageText, type CommandSpec } from '../args';
import type { Command } from '../command';
import { EXIT, type Io } from '../io';
import { presetCatalogOption } from '../presets-option';
import { readDnsNames, readTraceFile } from '../explain-inputs';
import { canReadTwice, checkOneStdin, reportSink } from '../report-output';
import { clipped } from '../escape';

export const spec: CommandSpec = {
  name: 'suggest',
  summary: 'Write a least-privilege policy from one or more traces',
  synopsis: ['suggest [options] TRACE|-...'],
  description: `Writes a least-privilege policy (JSON) under which the model allows every access the
given traces record as allowed (the union over runs): presets where a known preset covers the
access, then ecosystem sources recognised from what the job did (PyPI simple API, npm tarballs,
OCI /v2/ with the repositories and operations seen, git smart-HTTP and SSH with repository paths,
Go, APT, APK, RubyGems, Nix), then narrow tls/tcp connections. The policy sets "default": "deny",
lists its presets explicitly (an absent list would enable every preset) and passes
\`check --strict\`.
Accesses the traces record as denied are left out (they are listed on stderr with a count;
--include-denied allows them too). A plain-http request to a software source gets the https
rule (an http:// rule is flagged insecure-url) and is listed on stderr: the job should use https.`,
  options: {
    output: outputOption,
    'include-denied': { type: 'boolean', help: 'Also allow the accesses the traces record as denied.' },
    presets: presetsOption,
  },
  operands: { min: 1, name: 'TRACE (one or more trace files, or - for stdin)' },
  examples: ['netpolicy suggest fixtures/traces/python-build/trace.json fixtures/traces/npm-build/trace.json -o suggested.netpolicy.json'],
  exitCodes: [[0, 'policy written (left-out accesses are listed on stderr)'], [2, 'usage error, unreadable file or invalid trace']],
};

async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand(spec, args);
  checkOneStdin(positionals);
  const catalog = presetCatalogOption(values.presets as string | undefined);
  const suggester = new Suggester({ catalog, includeDenied: values['include-denied'] === true });
  for (const file of positionals) {
    suggester.beginTrace(canReadTwice(file) ? await readDnsNames(file) : undefined);
    await readTraceFile(file, (o) => suggester.add(o));
  }
  const policy = suggester.finish();
  const text = JSON.stringify(policy, null, 2) + '\n';
  const sink = reportSink(io, values.output as string | undefined);
  const out = io.stdout as { write(text: string, done?: (error?: Error | null) => void): unknown };
  if (sink.toStdout && out.write.length >= 2) {
    // The notes come once the report is out: a stdout that failed (closed pipe, full disk) ends
    // the process with its own message (guardStandardStreams), and nothing more is said.
    const written = await new Promise<boolean>((resolve) => { out.write(text, (error) => resolve(!error)); });
    if (!written) return EXIT.usage;
  } else sink.write(text);
  const left = suggester.leftOut();
  const denied = left.filter((l) => l.reason === 'denied');
  const insecure = left.filter((l) => l.reason === 'insecure-http');
  const unmatchable = left.filter((l) => l.reason === 'unmatchable-host');
  const count = (ls: typeof left) => ls.reduce((n, l) => n + l.count, 0);
  const lines: string[] = [];
  const list = (ls: typeof left) => {
    for (const l of ls.slice(0, 20)) lines.push(`  ${clipped(describeAccess(l.access))}${l.count > 1 ? `  ×${l.count}` : ''}`);
    if (ls.length > 20) lines.push(`  ... and ${ls.length - 20} more`);
  };
  if (denied.length) {
    lines.push(`netpolicy suggest: left out ${count(denied)} access${count(denied) === 1 ? '' : 'es'} the trace${positionals.length > 1 ? 's' : ''} recorded as denied (${denied.length} destination${denied.length === 1 ? '' : 's'}; --include-denied allows them):`);
    list(denied);
  }
  if (insecure.length) {
    lines.push(`netpolicy suggest: ${count(insecure)} plain-http request${count(insecure) === 1 ? '' : 's'} to software sources: the policy allows their https form only; make the job use https:`);
    list(insecure);
  }
  if (unmatchable.length) {
    lines.push(`netpolicy suggest: left out ${count(unmatchable)} access${count(unmatchable) === 1 ? '' : 'es'} to host names no rule can match (over 253 characters, a label over 63, an empty label, or a label starting or ending with \`-\`):`);
    list(unmatchable);
  }
  if (lines.length) io.stderr.write(lines.join('\n') + '\n');
  return EXIT.ok;
}

export const command: Command = { name: 'suggest', summary: spec.summary, usage: usageText(spec), spec, run };
