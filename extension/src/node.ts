/** Desktop entry: the bundled server (dist/server.js) runs in a Node process, spoken to over IPC. */
import { availableParallelism } from 'node:os';
import type * as vscode from 'vscode';
import { serverNodeOptions } from '@netpolicy/language-server/protocol';
import { LanguageClient, TransportKind, type ServerOptions } from 'vscode-languageclient/node';
import { activateWith, deactivateClient, type NetpolicyApi } from './activate';
import { readChunksInside, readInside, writeInside } from './node-files';

export function activate(context: vscode.ExtensionContext): Promise<NetpolicyApi> {
  return activateWith(context, (clientOptions) => {
    const module = context.asAbsolutePath('dist/server.js');
    // V8's background threads leave the server's main thread a core (serverNodeOptions), where the
    // runtime that forks the server (this one) takes the option.
    const execArgv = process.allowedNodeEnvironmentFlags?.has('--v8-pool-size') ? serverNodeOptions(availableParallelism()) : [];
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc, options: { execArgv } },
      // "Attach to Node Process" on port 6011 debugs the server.
      debug: { module, transport: TransportKind.ipc, options: { execArgv: [...execArgv, '--nolazy', '--inspect=6011'] } },
    };
    return new LanguageClient('netpolicy', 'netpolicy', serverOptions, clientOptions);
  }, {
    // The one read guard and the one write guard (node-files.ts).
    readChunks: readChunksInside,
    readFile: readInside,
    writeFile: writeInside,
  });
}

export function deactivate(): Promise<void> {
  return deactivateClient();
}
