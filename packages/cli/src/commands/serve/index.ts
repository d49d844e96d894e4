import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommand, usageText, type CommandSpec } from '../../args';
import type { Command } from '../../command';
import { EXIT, UsageError } from '../../io';
import { startService } from './server';

export const spec: CommandSpec = {
  name: 'serve',
  summary: 'Run a local implementation of the service over a directory of records',
  synopsis: ['serve --data DIR [--port N] [--host 127.0.0.1] [--quiet]'],
  description: `Runs a local implementation of the job provenance service (GET /v1preview1/sbom,
/v1preview1/network-trace, /v1preview1/artifacts) over a directory of stored records,
for demos, integration tests and the editor. Bearer tokens come from DIR/tokens.json; every
error is a problem document (400 malformed selector, 401 token, 404 unknown job or
artifact, 409 job not terminal, 503 dependency unavailable, stored record invalid or
unreadable; also 400/431 for what Node's HTTP parser refuses). HEAD is answered wherever GET is.
The directory layout is described in docs/serve.md; fixtures/service is a sample.
Prints the listening URL on the first line of stdout. Stops on SIGINT or SIGTERM.`,
  options: {
    data: { type: 'string', value: 'DIR', help: 'Directory of records (required).' },
    port: { type: 'string', value: 'N', help: 'Port to listen on, 0..65535 (default 8080; 0 picks a free port).' },
    host: { type: 'string', value: 'ADDR', help: 'Address to bind (default 127.0.0.1; the records are served to whoever can reach it).' },
    quiet: { type: 'boolean', help: 'Do not log requests on stderr.' },
  },
  operands: { min: 0, max: 0, name: '(none)' },
  examples: [
    'netpolicy serve --data fixtures/service --port 8080 &',
    'NETPOLICY_BASE_URL=http://127.0.0.1:8080 NETPOLICY_TOKEN=demo-token-valid netpolicy fetch trace --repo acme/webapp --job-id 1001',
  ],
  exitCodes: [
    [0, 'stopped by a signal'],
    [2, 'usage error (no --data, unreadable directory, port in use or not allowed, address not on this machine)'],
    [141, 'stdout or stderr was a pipe whose reader went away'],
  ],
};

const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: 'address in use',
  EADDRNOTAVAIL: 'address not available on this machine',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'host name lookup failed',
};

export const command: Command = {
  name: 'serve',
  summary: 'Run a local implementation of the service over a directory of records',
  usage: usageText(spec),
  spec,
  async run(args, io) {
    const values = parseCommand(spec, args).values as { data?: string; port?: string; host?: string; quiet?: boolean };
    if (!values.data) throw new UsageError('missing option --data DIR');
    const data = resolve(io.cwd, values.data);
    if (!existsSync(data)) throw new UsageError(`cannot read ${values.data}: no such directory`);
    if (!statSync(data).isDirectory()) throw new UsageError(`cannot read ${values.data}: not a directory`);
    if (!existsSync(resolve(data, 'tokens.json'))) io.stderr.write(`netpolicy serve: warning: ${values.data}/tokens.json is missing; every request will be refused (401)\n`);
    let port = 8080;
    if (values.port !== undefined) {
      if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) throw new UsageError(`option --port must be 0..65535, got ${values.port}`);
      port = Number(values.port);
    }
    const host = values.host ?? '127.0.0.1';
    let service;
    try {
      service = await startService({ data, port, host, log: values.quiet ? undefined : (line) => io.stderr.write(`${line}\n`) });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot listen on ${host}:${port}: ${code && LISTEN_FAILURES[code] ? `${LISTEN_FAILURES[code]} (${code})` : code ?? (error as Error).message}`);
    }
    io.stdout.write(`${service.url}\n`);
    if (!values.quiet) io.stderr.write(`netpolicy serve: serving ${values.data} at ${service.url}/v1preview1 (Ctrl-C to stop)\n`);
    await new Promise<void>((done) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        service.close().then(done, done);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    return EXIT.ok;
  },
};
