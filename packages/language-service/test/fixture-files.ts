/** The policy files under the repository's fixtures/ (found by core's isPolicyFile, D6), for the every-offset tests of the service and the server. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isPolicyFile } from '@netpolicy/core';

export const fixtures = fileURLToPath(new URL('../../../fixtures/', import.meta.url));

export function policyFiles(dir: string = fixtures, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) policyFiles(join(dir, e.name), out);
    else if (isPolicyFile(e.name)) out.push(join(dir, e.name));
  }
  return out;
}
