/**
 * A plain LSP client for tests: the real server in-process over duplex streams, or spawned as
 * `netpolicy-language-server --stdio`. It answers the server's requests (configuration,
 * registrations) and records every publishDiagnostics.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { afterEach } from 'vitest';
import { createConnection } from 'vscode-languageserver/node';
import { startServer } from '../src/server';
import { nodeHost as nodeHostForTests } from '../src/node-host';

export const SERVER_BIN = fileURLToPath(new URL('../bin/netpolicy-language-server.js', import.meta.url));

export interface PublishedDiagnostics { uri: string; version?: number; diagnostics: any[] }

export interface TestClient {
  connection: MessageConnection;
  published: PublishedDiagnostics[];
  messages: Array<{ type: number; message: string }>;
  /** Every request the server sent the client (method and params), in order. */
  serverRequests: Array<{ method: string; params: any }>;
  /** Every window/logMessage (a handler that threw logs `... failed:` with type 1). */
  logs: Array<{ type: number; message: string }>;
  /** Every `$/progress` with a token no handler took (work done progress), in order. */
  progress: Array<{ token: string | number; value: any }>;
  settings: Record<string, unknown>;
  request<T = any>(method: string, params: unknown): Promise<T>;
  notify(method: string, params: unknown): Promise<void>;
  /** Resolves with the first publish for `uri` (and `version` when given) recorded at index `since` or later (default: any). */
  diagnostics(uri: string, version?: number, since?: number): Promise<PublishedDiagnostics>;
  open(uri: string, text: string, version?: number, languageId?: string): Promise<void>;
  close(): Promise<void>;
  child?: ChildProcess;
  initializeResult?: any;
}

export interface ClientOptions {
  rootUri?: string;
  settings?: Record<string, unknown>;
  capabilities?: Record<string, unknown>;
  spawn?: boolean;
  /** With `spawn`: the Node.js options the server is started with (before its script). */
  nodeOptions?: string[];
  initializationOptions?: unknown;
  /** The workspace folders (default: one, at rootUri). */
  workspaceFolders?: Array<{ uri: string; name: string }>;
  processId?: number | null;
  /** How the client treats workspace/configuration: answer with `settings` (default), or never answer. */
  configuration?: 'answer' | 'never';
  /** Answers workspace/applyEdit (default: applied). */
  applyEdit?: (params: any) => unknown;
  /** How the client treats window/workDoneProgress/create: make the token (default), refuse it, or never answer. */
  createProgress?: 'answer' | 'refuse' | 'never';
}

/** A temporary folder holding these files (their folders made on the way); the caller removes it. */
export function writeWorkspace(files: Record<string, string>, prefix = 'np-ls-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

export function fileUri(path: string): string {
  return pathToFileURL(path).href;
}

export async function startClient(options: ClientOptions = {}): Promise<TestClient> {
  let connection: MessageConnection;
  let child: ChildProcess | undefined;
  let stopServer = () => {};
  if (options.spawn) {
    child = spawn(process.execPath, [...(options.nodeOptions ?? []), SERVER_BIN, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr!.resume();
    connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  } else {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const server = createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
    startServer(server, nodeHostForTests);
    connection = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
    stopServer = () => { server.dispose(); toServer.end(); toClient.end(); };
  }
  const published: PublishedDiagnostics[] = [];
  const waiters: Array<{ uri: string; version?: number; since: number; resolve: (p: PublishedDiagnostics) => void }> = [];
  const messages: Array<{ type: number; message: string }> = [];
  const serverRequests: Array<{ method: string; params: any }> = [];
  const logs: Array<{ type: number; message: string }> = [];
  const progress: Array<{ token: string | number; value: any }> = [];
  const client: TestClient = {
    connection, published, messages, serverRequests, logs, progress, settings: 'settings' in options ? options.settings! : {}, child,
    request: (method, params) => connection.sendRequest(method, params),
    notify: (method, params) => connection.sendNotification(method, params),
    diagnostics(uri, version, since = 0) {
      const found = published.slice(since).find((p) => p.uri === uri && (version === undefined || p.version === version));
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ uri, version, since, resolve }));
    },
    async open(uri, text, version = 1, languageId = 'json') {
      await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
    },
    async close() {
      try { await connection.sendRequest('shutdown'); } catch {}
      connection.dispose();
      stopServer();
      child?.kill();
    },
  };
  connection.onNotification('textDocument/publishDiagnostics', (p: PublishedDiagnostics) => {
    published.push(p);
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i];
      if (w.uri === p.uri && (w.version === undefined || w.version === p.version)) { waiters.splice(i, 1); w.resolve(p); }
    }
  });
  connection.onNotification('window/showMessage', (m: { type: number; message: string }) => messages.push(m));
  connection.onNotification('window/logMessage', (m: { type: number; message: string }) => logs.push(m));
  const record = (method: string, params: any) => serverRequests.push({ method, params });
  connection.onRequest('workspace/configuration', (p: { items: Array<{ section?: string }> }) => {
    record('workspace/configuration', p);
    return options.configuration === 'never' ? new Promise(() => {}) : p.items.map(() => client.settings);
  });
  connection.onRequest('client/registerCapability', (p) => { record('client/registerCapability', p); return null; });
  connection.onRequest('workspace/codeLens/refresh', () => null);
  connection.onRequest('workspace/inlayHint/refresh', (p) => { record('workspace/inlayHint/refresh', p); return null; });
  connection.onRequest('workspace/diagnostic/refresh', (p) => { record('workspace/diagnostic/refresh', p); return null; });
  connection.onRequest('window/workDoneProgress/create', (p) => {
    record('window/workDoneProgress/create', p);
    if (options.createProgress === 'refuse') throw new Error('no progress here');
    return options.createProgress === 'never' ? new Promise(() => {}) : null;
  });
  connection.onUnhandledProgress((p) => progress.push(p));
  connection.onRequest('workspace/applyEdit', (p) => { record('workspace/applyEdit', p); return options.applyEdit ? options.applyEdit(p) : { applied: true }; });
  connection.onRequest('window/showMessageRequest', (m: { type: number; message: string }) => { messages.push(m); return null; });
  connection.listen();
  client.initializeResult = await connection.sendRequest('initialize', {
    processId: options.processId ?? null,
    rootUri: options.rootUri ?? null,
    ...(options.initializationOptions !== undefined ? { initializationOptions: options.initializationOptions } : {}),
    workspaceFolders: options.workspaceFolders ?? (options.rootUri ? [{ uri: options.rootUri, name: 'ws' }] : null),
    capabilities: options.capabilities ?? { workspace: { configuration: true, codeLens: { refreshSupport: true }, didChangeWatchedFiles: { dynamicRegistration: true } }, textDocument: { publishDiagnostics: { relatedInformation: true, versionSupport: true } } },
  });
  await connection.sendNotification('initialized', {});
  return client;
}

/**
 * A `client(options)` for a test file: each client it starts is closed after each test. Call once,
 * at the top level of the file.
 */
export function clientPerTest(): (options?: ClientOptions) => Promise<TestClient> {
  let clients: TestClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    clients = [];
  });
  return async (options = {}) => {
    const c = await startClient(options);
    clients.push(c);
    return c;
  };
}

/** Calls `fn` until `ok` holds of its value or `ms` have passed (then returns the last value, for the assertion to report). */
export async function poll<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The code lens titles of a document, by line. */
export async function lensesByLine(c: TestClient, uri: string): Promise<Record<number, string>> {
  const list = await c.request<any[]>('textDocument/codeLens', { textDocument: { uri } });
  const out: Record<number, string> = {};
  for (const l of list) out[l.range.start.line] = l.command.title;
  return out;
}
