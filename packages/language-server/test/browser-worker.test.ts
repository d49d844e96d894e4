/**
 * The browser build (dist/browser.js, a classic worker script as VS Code for the Web loads it)
 * runs in a worker whose global scope is shaped like a DedicatedWorkerGlobalScope (postMessage,
 * onmessage, addEventListener) and answers LSP over messages: diagnostics, completion and hover.
 * `npm test` builds it first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { BrowserMessageReader, BrowserMessageWriter, createMessageConnection, type MessageConnection } from 'vscode-jsonrpc/browser';

const BUNDLE = fileURLToPath(new URL('../dist/browser.js', import.meta.url));

// Inside the worker: a global scope like a browser worker's, then the bundle as a classic script.
const BOOT = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const vm = require('node:vm');
const listeners = [];
globalThis.self = globalThis;
globalThis.postMessage = (data) => parentPort.postMessage(data);
globalThis.addEventListener = (type, fn) => { if (type === 'message') listeners.push(fn); };
let onmessage = null;
Object.defineProperty(globalThis, 'onmessage', { get: () => onmessage, set: (fn) => { onmessage = fn; } });
parentPort.on('message', (data) => { if (onmessage) onmessage({ data }); for (const l of listeners) l({ data }); });
// No require, process or module inside the script: what a browser worker has (its web globals, URLSearchParams among them).
const context = vm.createContext({ self: globalThis, postMessage: globalThis.postMessage, addEventListener: globalThis.addEventListener,
  get onmessage() { return onmessage; }, set onmessage(fn) { onmessage = fn; },
  setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask, console, TextEncoder, TextDecoder, URL, URLSearchParams, Promise, Date, Math, JSON });
context.self = context;
vm.runInContext(readFileSync(workerData, 'utf8'), context, { filename: 'browser.js' });
`;

let worker: Worker | undefined;
let connection: MessageConnection | undefined;
afterEach(async () => {
  connection?.dispose();
  await worker?.terminate();
});

/** The bundle in a worker, and a connection to it over messages. */
function startWorker(): MessageConnection {
  worker = new Worker(BOOT, { eval: true, workerData: BUNDLE });
  const port = {
    addEventListener: () => {},
    postMessage: (data: unknown) => worker!.postMessage(data),
    set onmessage(fn: (e: { data: unknown }) => void) { worker!.on('message', (data) => fn({ data })); },
  };
  return createMessageConnection(new BrowserMessageReader(port as any), new BrowserMessageWriter(port as any));
}

describe('the browser worker build', () => {
  it('is built', () => {
    expect(existsSync(BUNDLE)).toBe(true);
  });

  it('validates, completes and hovers over postMessage, without Node globals', async () => {
    connection = startWorker();
    const published: any[] = [];
    const got = new Promise<any>((resolve) => connection!.onNotification('textDocument/publishDiagnostics', (p) => { published.push(p); resolve(p); }));
    connection.onRequest('workspace/configuration', (p: any) => p.items.map(() => ({})));
    connection.onRequest('client/registerCapability', () => null);
    connection.listen();
    const init: any = await connection.sendRequest('initialize', { processId: null, rootUri: 'vscode-vfs://github/acme/repo', capabilities: { workspace: { configuration: true } } });
    expect(init.capabilities.completionProvider).toBeDefined();
    await connection.sendNotification('initialized', {});
    const uri = 'vscode-vfs://github/acme/repo/ci.netpolicy.json';
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'json', version: 3, text: '{"presets": ["nope"], "default": "deny"}' } });
    const diagnostics = await got;
    expect(diagnostics.version).toBe(3);
    expect(diagnostics.diagnostics.map((d: any) => d.code)).toEqual(['unknown-preset']);
    const completion: any = await connection.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: 0, character: 14 } });
    expect(completion.items.map((i: any) => i.label)).toContain('pypi');
    const hover: any = await connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 25 } });
    expect(hover.contents.value).toMatch(/deny/);
  });

  it('runs a policy test file against the open policy of its folder, and says so when none is open (it reads no files)', async () => {
    connection = startWorker();
    const published = new Map<string, ((p: any) => void)[]>();
    const next = (uri: string) => new Promise<any>((resolve) => published.set(uri, [...(published.get(uri) ?? []), resolve]));
    connection.onNotification('textDocument/publishDiagnostics', (p: any) => {
      const waiting = published.get(p.uri) ?? [];
      published.set(p.uri, []);
      for (const w of waiting) w(p);
    });
    connection.onRequest('workspace/configuration', (p: any) => p.items.map(() => ({})));
    connection.onRequest('client/registerCapability', () => null);
    connection.listen();
    await connection.sendRequest('initialize', { processId: null, rootUri: 'vscode-vfs://github/acme/repo', capabilities: { workspace: { configuration: true } } });
    await connection.sendNotification('initialized', {});
    const tests = 'vscode-vfs://github/acme/repo/ci/ci.tests.json';
    const testsText = JSON.stringify({ tests: [
      { name: 'npm', http: { url: 'https://registry.npmjs.org/x' }, expect: 'allow' },
      { name: 'yarn', http: { url: 'https://registry.yarnpkg.com/x' }, expect: 'allow' },
    ] }, null, 2);
    const alone = next(tests);
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri: tests, languageId: 'netpolicy-tests', version: 1, text: testsText } });
    expect((await alone).diagnostics.map((d: any) => [d.code, d.message])).toEqual([
      ['policy-test-binding', 'no policy of this folder is open, and this editor reads no files: open the policy beside this test file (or name it with "policy": "FILE" and open it)'],
    ]);
    // The policy opened: the test file runs against it.
    const ran = next(tests);
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri: 'vscode-vfs://github/acme/repo/ci/ci.netpolicy.json', languageId: 'netpolicy', version: 1, text: '{ "default": "deny", "presets": [], "sources": [{ "npm": { "urls": ["https://registry.npmjs.org"] } }] }' } });
    expect((await ran).diagnostics.map((d: any) => [d.code, d.message])).toEqual([['policy-test', expect.stringMatching(/^yarn: expected allow/)]]);
    const lenses: any = await connection.sendRequest('textDocument/codeLens', { textDocument: { uri: tests } });
    expect(lenses.map((l: any) => l.command.title)).toEqual(['Run all 2 tests (1 failed)', '✓ allow via /sources/0', '✗ expected allow, denied by default']);
  });
});
