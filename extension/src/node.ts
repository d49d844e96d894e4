/** Desktop entry: the bundled server (dist/server.js) runs in a Node process, spoken to over IPC. */
import type * as vscode from 'vscode';
import { constants } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LanguageClient, TransportKind, type ServerOptions } from 'vscode-languageclient/node';
import { activateWith, deactivateClient, type NetpolicyApi } from './activate';

export function activate(context: vscode.ExtensionContext): Promise<NetpolicyApi> {
  return activateWith(context, (clientOptions) => {
    const module = context.asAbsolutePath('dist/server.js');
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      // "Attach to Node Process" on port 6011 debugs the server.
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
    };
    return new LanguageClient('netpolicy', 'netpolicy', serverOptions, clientOptions);
  }, { realPath, readChunks });
}

/**
 * The real path of `path`, or of its nearest existing parent joined with the rest (a file about to
 * be written); undefined when a part of it is a link that does not resolve.
 */
async function realPath(path: string): Promise<string | undefined> {
  let rest = '';
  for (let p = path; ; p = dirname(p)) {
    try {
      const real = await realpath(p);
      return rest ? `${real.replace(/\/+$/, '')}/${rest}` : real;
    } catch {
      // A name that exists but does not resolve (a dangling or looping link) could lead anywhere once written through.
      if (dirname(p) === p || (await lstat(p).then(() => true, () => false))) return undefined;
      rest = rest ? `${p.slice(dirname(p).length).replace(/^\//, '')}/${rest}` : p.slice(dirname(p).length).replace(/^\//, '');
    }
  }
}

/**
 * A trace file's chunks: opened without blocking (a FIFO with no writer does not hang the
 * extension host) and read only when it is a regular file; streamed, never read whole.
 */
async function readChunks(path: string): Promise<AsyncIterable<Uint8Array>> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const s = await handle.stat();
    if (!s.isFile()) throw new Error(`${path} is not a regular file (${s.isDirectory() ? 'a folder' : s.isFIFO() ? 'a FIFO' : s.isCharacterDevice() || s.isBlockDevice() ? 'a device' : s.isSocket() ? 'a socket' : 'a special file'})`);
  } catch (e) {
    await handle.close();
    throw e;
  }
  return handle.createReadStream({ highWaterMark: 64 * 1024 });
}

export function deactivate(): Promise<void> {
  return deactivateClient();
}
