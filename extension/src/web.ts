/** Browser entry (vscode.dev, github.dev): the server runs in a web worker (dist/web/server.js). */
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/browser';
import { activateWith, deactivateClient, type NetpolicyApi } from './activate';
import { log } from './output';

/**
 * The worker for the server script. vscode.dev serves extensions over https, so the script's URL
 * is used directly. Where the extension's files live on a remote host (code-server, a remote
 * window) VS Code refuses a worker from a `vscode-remote:` URL: the script is then read through
 * the file system API and started from a blob URL.
 */
async function serverWorker(context: vscode.ExtensionContext): Promise<Worker> {
  const script = vscode.Uri.joinPath(context.extensionUri, 'dist/web/server.js');
  try {
    return new Worker(script.toString(true));
  } catch (e) {
    log(`starting the server worker from ${script.scheme}: failed (${e instanceof Error ? e.message : String(e)}); starting it from a blob`);
    const bytes = await vscode.workspace.fs.readFile(script);
    return new Worker(URL.createObjectURL(new Blob([new TextDecoder().decode(bytes)], { type: 'text/javascript' })));
  }
}

export function activate(context: vscode.ExtensionContext): Promise<NetpolicyApi> {
  return activateWith(context, async (clientOptions) => new LanguageClient('netpolicy', 'netpolicy', clientOptions, await serverWorker(context)));
}

export function deactivate(): Promise<void> {
  return deactivateClient();
}
