// Generators of the SBOM attribution benchmark's inputs (security issue 28, item 4): written into a
// temporary directory, never committed.
//   node bench/sbom-data.mjs DIR [components]    writes the set into DIR and prints the paths
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The component every access of the trace downloads. */
export const LODASH = { name: 'lodash', version: '4.17.21', purl: 'pkg:npm/lodash@4.17.21' };
export const LODASH_TARBALL = 'https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz';

/**
 * A CycloneDX SBOM of `count` components, `component(i)` each (a JSON text), one a line: the
 * report's 300,000 identical lodash components are 26 MB.
 */
export function writeSbom(file, count, component = () => JSON.stringify({ type: 'library', ...LODASH })) {
  const fd = openSync(file, 'w');
  writeSync(fd, '{"bomFormat":"CycloneDX","specVersion":"1.7","version":1,"metadata":{"component":{"type":"application","name":"app","version":"1.0.0"}},"components":[\n');
  let buf = '';
  for (let i = 0; i < count; i++) {
    buf += component(i) + (i === count - 1 ? '\n' : ',\n');
    if (buf.length > 1 << 20) { writeSync(fd, buf); buf = ''; }
  }
  writeSync(fd, `${buf}]}\n`);
  closeSync(fd);
}

/** A trace of `count` denied GETs of `url` (the lodash tarball by default). */
export function writeDeniedDownloads(file, count, url = LODASH_TARBALL) {
  const observations = Array.from({ length: count }, (_, i) => JSON.stringify({
    protocol: 'http', observed_at: `2026-03-02T10:00:${String(i % 60).padStart(2, '0')}.000Z`, sequence: i + 1, method: 'GET', url,
    remote_ip: '192.0.2.10', status_code: 403, response_body_size: '0', denied: true, denied_reason: 'not allowed by policy',
  }));
  writeFileSync(file, `{"schema_version":"1.0","job":{"provider":"ciprovider","repository":"acme/app","job_id":"28004","run_id":"1","run_attempt":1},"observations":[\n${observations.join(',\n')}\n]}\n`);
}

/** A policy that allows an internal npm registry only: every download of the trace is denied. */
export function writeDenyingPolicy(file) {
  writeFileSync(file, JSON.stringify({ default: 'deny', presets: [], sources: [{ npm: { urls: ['https://npm.internal.example'] } }], connections: [] }, null, 2));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) { console.error('usage: node bench/sbom-data.mjs DIR [components]'); process.exit(2); }
  mkdirSync(dir, { recursive: true });
  const count = Number(process.argv[3] ?? 300000);
  const sbom = join(dir, `sbom-lodash-${count}.cdx.json`), trace = join(dir, 'lodash-denied-50.json'), policy = join(dir, 'npm-internal.json');
  writeSbom(sbom, count);
  writeDeniedDownloads(trace, 50);
  writeDenyingPolicy(policy);
  console.log([sbom, trace, policy].join('\n'));
}
