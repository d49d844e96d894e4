/** Browser entry (vscode.dev, github.dev): the server runs in a web worker (dist/web/server.js). */
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/browser';
import { activateWith, deactivateClient, type NetpolicyApi } from './activate';

export function activate(context: vscode.ExtensionContext): Promise<NetpolicyApi> {
  return activateWith(context, (clientOptions) => {
    const worker = new Worker(vscode.Uri.joinPath(context.extensionUri, 'dist/web/server.js').toString(true));
    return new LanguageClient('netpolicy', 'netpolicy', clientOptions, worker);
  });
}

export function deactivate(): Promise<void> {
  return deactivateClient();
}
