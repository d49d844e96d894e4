import { outputOption, parseCommand, usageText, type CommandSpec } from '../../args';
import { MAX_TIMEOUT_MS, parseDigest, type ApiResult, type ArtifactKind } from '@netpolicy/client';
import type { Command } from '../../command';
import { escapeControl } from '../../escape';
import { EXIT, UsageError, checkOutputTarget, writeOutput, type Io } from '../../io';
import { baseUrlOf, makeClient, MAX_ATTEMPTS, reportServiceError, SERVICE_ENVIRONMENT, tokenOf, TOKEN_REFUSED } from '../../service-client';

export { exitCodeFor } from '../../service-client';

export const spec: CommandSpec = {
  name: 'fetch',
  summary: 'Download a job SBOM or trace, or an artifact record, from the service',
  synopsis: [
    'fetch sbom|trace --repo OWNER/REPO --job-id N [--provider ciprovider] [options]',
    'fetch artifact --kind K --digest ALG:HEX [--repository OWNER/REPO] [options]',
  ],
  description: `Downloads a job's CycloneDX 1.7 SBOM, a job's network trace, or an artifact record (which jobs
published an artifact) from the job provenance service, checks it, and writes it to stdout
or FILE. Selectors are checked before any request: --repo OWNER/REPO, --job-id a decimal
number up to 18446744073709551615, --kind oci_manifest|oci_index|ci_cache, --digest
sha256:<64 hex> or sha512:<128 hex>; ci_cache needs sha256 and --repository. The token comes
from NETPOLICY_TOKEN or --token-file, never from a plain option; it is sent only to the base
URL's origin and never printed.`,
  options: {
    repo: { type: 'string', value: 'OWNER/REPO', help: 'The job\'s repository (sbom, trace).' },
    'job-id': { type: 'string', value: 'N', help: 'The job\'s id, a decimal number (sbom, trace).' },
    provider: { type: 'string', value: 'ciprovider', help: 'The job\'s CI provider (sbom, trace). Default: ciprovider.' },
    kind: { type: 'string', value: 'oci_manifest|oci_index|ci_cache', help: 'The artifact\'s kind (artifact).' },
    digest: { type: 'string', value: 'ALG:HEX', help: 'The artifact\'s digest, sha256:<64 hex> or sha512:<128 hex> (artifact).' },
    repository: { type: 'string', value: 'OWNER/REPO', help: 'The repository of a ci_cache artifact (artifact).' },
    output: { ...outputOption, help: 'Write the download to FILE instead of stdout (atomically: a failure leaves no file; a replaced file keeps its mode; `-` is stdout). A missing folder or a directory is refused before the download.' },
    'base-url': { type: 'string', value: 'URL', help: 'Service base URL (default: $NETPOLICY_BASE_URL); https, or http only for localhost, 127.0.0.0/8 and ::1.' },
    'token-file': { type: 'string', value: 'FILE', help: 'Read the access token from FILE (default: $NETPOLICY_TOKEN). Tokens are never taken as a plain option and never printed.' },
    'no-validate': { type: 'boolean', help: 'Do not validate the SBOM as CycloneDX 1.7 (JSON and media type are still checked; sbom).' },
    timeout: { type: 'string', value: 'SECONDS', help: `Timeout of one attempt (default 30, at most ${MAX_TIMEOUT_MS / 1000}).` },
    attempts: { type: 'string', value: 'N', help: `Attempts in all for 429/502/503/504, timeouts and network errors (default 4, at least 3 recommended, at most ${MAX_ATTEMPTS}); Retry-After (delta-seconds or HTTP-date) is honoured.` },
    quiet: { type: 'boolean', help: 'No retry or progress messages on stderr.' },
  },
  operands: { min: 1, max: 1, name: 'sbom|trace|artifact (what to download)', choices: ['sbom', 'trace', 'artifact'] },
  environment: SERVICE_ENVIRONMENT,
  examples: [
    'NETPOLICY_BASE_URL=https://provenance.example NETPOLICY_TOKEN=... netpolicy fetch trace --repo acme/webapp --job-id 1001 -o trace.json',
    'netpolicy fetch artifact --kind ci_cache --repository acme/webapp --digest sha256:0123...cdef --token-file ~/.netpolicy-token',
  ],
  exitCodes: [
    [0, 'written'],
    [2, 'usage error, selector refused locally, insecure base URL, unreadable token file, token shorter than 8 characters or not visible ASCII, a timeout over its maximum, a failed write (disk full)'],
    [3, 'authentication failed (401)'],
    [4, 'not found (404)'],
    [5, 'job not terminal (409)'],
    [6, 'service unavailable once retries ran out (5xx, 429, timeout, network error)'],
    [7, 'any other API failure (other 4xx, wrong media type, invalid or truncated body, invalid CycloneDX, a redirect to another origin or to an invalid URL)'],
    [141, 'stdout was a closed pipe'],
  ],
  refused: {
    token: TOKEN_REFUSED,
  },
};

export const command: Command = {
  name: 'fetch',
  summary: 'Download a job SBOM or trace, or an artifact record, from the service',
  usage: usageText(spec),
  spec,
  async run(args, io) {
    const parsed = parseCommand(spec, args);
    const values = parsed.values as Record<string, string | undefined> & { 'no-validate'?: boolean; quiet?: boolean };
    const what = parsed.positionals[0];
    const jobOpts = ['repo', 'job-id', 'provider'] as const;
    const artifactOpts = ['kind', 'digest', 'repository'] as const;
    const misplaced = (what === 'artifact' ? jobOpts : artifactOpts).filter((o) => values[o] !== undefined);
    if (misplaced.length) throw new UsageError(`option --${misplaced[0]} does not apply to \`fetch ${what}\``);
    if (values['no-validate'] && what !== 'sbom') throw new UsageError('option --no-validate applies only to `fetch sbom`');

    const baseUrl = baseUrlOf(io, values);
    const token = tokenOf(io, values);
    const quiet = values.quiet === true;

    if (what === 'artifact') {
      if (values.kind === undefined) throw new UsageError('missing option --kind oci_manifest|oci_index|ci_cache');
      if (values.digest === undefined) throw new UsageError('missing option --digest ALG:HEX');
    } else {
      if (values.repo === undefined) throw new UsageError('missing option --repo OWNER/REPO');
      if (values['job-id'] === undefined) throw new UsageError('missing option --job-id N');
    }
    const client = makeClient(io, 'fetch', baseUrl, token, values, quiet);
    checkOutputTarget(io.cwd, values.output); // before the download, not after it
    // Once every option is known to be usable: a usage error is then the only line.
    if (token === undefined && !quiet) io.stderr.write('netpolicy fetch: no token (set NETPOLICY_TOKEN or pass --token-file); the service will likely refuse the request\n');
    let result: ApiResult<unknown>;
    try {
      if (what === 'artifact') {
        result = await client.findArtifact({ kind: values.kind as ArtifactKind, ...parseDigest(values.digest!), repository: values.repository });
      } else {
        const selector = { provider: values.provider, repo: values.repo!, jobId: values['job-id']! }; // checked above
        const progress = progressReporter(io, quiet);
        try {
          result = what === 'sbom' ? await client.getSbom(selector, { onProgress: progress.update }) : await client.getNetworkTrace(selector, { onProgress: progress.update });
        } finally {
          progress.done();
        }
      }
    } catch (error) {
      return reportServiceError(io, 'fetch', error);
    }

    const text = result.text.endsWith('\n') ? result.text : `${result.text}\n`;
    const written = writeOutput(io, values.output, text);
    if (written !== undefined && !quiet) io.stderr.write(`netpolicy fetch: wrote ${escapeControl(values.output!)} (${Buffer.byteLength(text)} bytes)\n`);
    return EXIT.ok;
  },
};

/** "downloading 1.2 MiB of 3.4 MiB" on a TTY only, redrawn at most every 100 ms. */
function progressReporter(io: Io, quiet: boolean) {
  const enabled = !quiet && io.stderr.isTTY === true;
  const started = Date.now();
  let last = 0;
  let shown = false;
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  return {
    update: enabled ? ({ received, total }: { received: number; total?: number }) => {
      const now = Date.now();
      // Only slow or large downloads: a quick small one would just flicker.
      if (now - last < 100 || (received < 256 * 1024 && now - started < 500)) return;
      last = now;
      shown = true;
      io.stderr.write(`\rdownloading ${mib(received)}${total ? ` of ${mib(total)}` : ''}\u001b[K`);
    } : undefined,
    done: () => { if (shown) io.stderr.write('\r\u001b[K'); },
  };
}
