/**
 * Browser entry: the server in a web worker (VS Code for the Web loads it with `new Worker(url)`),
 * speaking LSP over postMessage. No file access: settings come from the client.
 */
import { BrowserMessageReader, BrowserMessageWriter, createConnection } from 'vscode-languageserver/browser';
import { uriOnlyHost } from './host';
import { startServer } from './server';

declare const self: DedicatedWorkerGlobalScope;

startServer(createConnection(new BrowserMessageReader(self), new BrowserMessageWriter(self)), uriOnlyHost);
