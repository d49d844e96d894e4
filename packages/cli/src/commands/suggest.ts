import { parseCommandArgs } from '../args';
import { Suggester } from '@netpolicy/core';
import type { Command } from '../command';
import { EXIT, UsageError } from '../io';
import { presetCatalogOption } from '../presets-option';
import { readDnsNames, readTraceFile } from '../explain-inputs';

const usage = `Usage: netpolicy suggest [--presets FILE] TRACE...

Writes a least-privilege policy (JSON, on stdout) under which the model allows every access of
the given traces (the union over runs): presets where a known preset covers the access, then
ecosystem sources recognised from what the job did (PyPI simple API, npm tarballs, OCI /v2/ with
the repositories and operations seen, git smart-HTTP and SSH with repository paths, Go, APT,
APK, RubyGems, Nix), then narrow tls/tcp connections. The policy sets "default": "deny" and
lists its presets explicitly (an absent list would enable every preset).

Options:
  --presets FILE   A preset catalog that fills in or overrides the built-in one.

Example:
  netpolicy suggest fixtures/traces/python-build/trace.json fixtures/traces/npm-build/trace.json > suggested.netpolicy.json

Exit codes: 0 policy written; 2 usage error, unreadable file or invalid trace (message on stderr).
`;

export const command: Command = {
  name: 'suggest',
  summary: 'Write a least-privilege policy from one or more traces',
  usage,
  async run(args, io) {
    const parsed = parseCommandArgs({ args, options: { presets: { type: 'string' } }, allowPositionals: true, strict: true });
    if (parsed.positionals.length === 0) throw new UsageError('missing argument TRACE (one or more trace files)');
    const catalog = presetCatalogOption(parsed.values.presets);
    const suggester = new Suggester({ catalog });
    for (const file of parsed.positionals) {
      suggester.beginTrace(await readDnsNames(file));
      await readTraceFile(file, (o) => suggester.add(o));
    }
    io.stdout.write(JSON.stringify(suggester.finish(), null, 2) + '\n');
    return EXIT.ok;
  },
};
