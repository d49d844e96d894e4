import { accessOf, compilePolicy, describeAccess, describeRule, Suggester, type Access, type ComponentMatch, type Policy, type PresetCatalog, type SbomIndex } from '@netpolicy/core';
import { outputOption, parseCommand, presetsOption, usageText, type CommandSpec } from '../../args';
import type { Command } from '../../command';
import { EXIT, type Io } from '../../io';
import { presetCatalogOption } from '../../presets-option';
import { loadSbom, readDnsNames, readTraceFile } from '../../inputs';
import { componentLabel } from '../explain/components';
import { canReadTwice, checkOneStdin, reportSink } from '../../report-output';
import { clipped } from '../../escape';

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
    sbom: { type: 'string', value: 'FILE', help: 'The job\'s CycloneDX 1.7 SBOM (JSON): stderr then names, for each rule of the suggested policy, the SBOM components whose downloads it allows (docs/attribution.md).' },
  },
  operands: { min: 1, name: 'TRACE (one or more trace files, or - for stdin)' },
  examples: ['netpolicy suggest fixtures/traces/python-build/trace.json fixtures/traces/npm-build/trace.json -o suggested.netpolicy.json'],
  exitCodes: [[0, 'policy written (left-out accesses are listed on stderr)'], [2, 'usage error, unreadable file or invalid trace']],
};

async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand(spec, args);
  checkOneStdin([...positionals, values.sbom as string | undefined]);
  const catalog = presetCatalogOption(values.presets as string | undefined);
  const suggester = new Suggester({ catalog, includeDenied: values['include-denied'] === true });
  const served = values.sbom !== undefined ? new ServedComponents(loadSbom(values.sbom as string)) : undefined;
  for (const file of positionals) {
    suggester.beginTrace(canReadTwice(file) ? await readDnsNames(file) : undefined);
    await readTraceFile(file, (o) => { suggester.add(o); served?.add(o); });
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
  if (served) lines.push(...served.lines(policy, catalog));
  if (lines.length) io.stderr.write(lines.join('\n') + '\n');
  return EXIT.ok;
}

/** `--sbom`: the components each access of the traces fetched, then grouped by the suggested rule that allows it. */
class ServedComponents {
  /** One access per description: the components it named. Only accesses that named some are kept. */
  private readonly accesses = new Map<string, { access: Access; components: readonly ComponentMatch[] }>();

  constructor(private readonly index: SbomIndex) {}

  add(o: Parameters<typeof accessOf>[0]): void {
    const access = accessOf(o);
    if (!access) return;
    const key = describeAccess(access);
    if (this.accesses.has(key)) return;
    const remote = (o as { protocol?: string; remoteUrl?: unknown });
    const components = this.index.attribute(access, remote.protocol === 'ssh_git' && typeof remote.remoteUrl === 'string' ? remote.remoteUrl : undefined);
    if (components.length) this.accesses.set(key, { access, components });
  }

  lines(policy: Policy, catalog: PresetCatalog): string[] {
    const compiled = compilePolicy(policy, { catalog });
    const byRule = new Map<string, Map<string, string>>();
    for (const { access, components } of this.accesses.values()) {
      const d = compiled.evaluate(access);
      const rule = d.verdict === 'allow' ? d.rule : '';
      let set = byRule.get(rule);
      if (!set) byRule.set(rule, (set = new Map()));
      for (const m of components) set.set(m.bomRef ?? m.purl ?? `${m.name}@${m.version ?? ''}`, componentLabel(m));
    }
    if (byRule.size === 0) return ['netpolicy suggest: no access of the traces named a component of the SBOM'];
    // Presets, then sources and connections in policy order, then what the policy leaves out.
    const rank = (r: string) => (r === '' ? [3, 0] : r.startsWith('preset:') ? [0, 0] : r.startsWith('/sources/') ? [1, Number(r.slice(9))] : [2, Number(r.slice(13))]);
    const rules = [...byRule.keys()].sort((a, b) => rank(a)[0] - rank(b)[0] || rank(a)[1] - rank(b)[1] || a.localeCompare(b));
    const out = ['netpolicy suggest: SBOM components whose downloads each rule allows:'];
    for (const rule of rules) {
      const labels = [...byRule.get(rule)!.values()];
      const shown = labels.slice(0, 10).join(', ') + (labels.length > 10 ? `, ... and ${labels.length - 10} more` : '');
      out.push(`  ${rule === '' ? 'not allowed (left out, see above)' : clipped(describeRule(policy, rule))}: ${shown} (${labels.length} component${labels.length === 1 ? '' : 's'})`);
    }
    return out;
  }
}

export const command: Command = { name: 'suggest', summary: spec.summary, usage: usageText(spec), spec, run };
