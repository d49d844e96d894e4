/**
 * Browser entry: the server in a web worker (VS Code for the Web loads it with `new Worker(url)`),
 * speaking LSP over postMessage. No file access: settings come from the client. Messages pass the
 * message gate (lifecycle, params) as over stdio; what it refuses goes to the client's log.
 */
import { BrowserMessageReader, BrowserMessageWriter, createConnection, type Connection } from 'vscode-languageserver/browser';
import { uriOnlyHost } from './host';
import { GatedMessageReader } from './message-gate';
import { startServer } from './server';
import { guardMessages } from './sink';

declare const self: DedicatedWorkerGlobalScope;

const writer = new BrowserMessageWriter(self);
let connection: Connection | undefined;
const log = (message: string) => {
  try {
    connection?.console.warn(`[netpolicy] ${message}`);
  } catch {
    // closed connection
  }
};
connection = createConnection(new GatedMessageReader(new BrowserMessageReader(self), writer, log), writer);
// Log lines and notifications escaped from the first one (sink.ts).
guardMessages(connection);
startServer(connection, uriOnlyHost);
