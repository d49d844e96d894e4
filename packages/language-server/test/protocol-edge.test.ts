/**
 * The protocol edge of the spawned server (`netpolicy-language-server --stdio`), bytes in, frames
 * out: bad frames are logged and skipped (frame-guard.ts), bodies that are not one JSON-RPC
 * message are answered (message-gate.ts), the lifecycle follows LSP, every handler's params are
 * checked (params.ts), and formatting or the outline of a large policy does not hold up the other
 * requests. A fuzz test (fast-check) sends frames and params of every kind, split anywhere.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { StreamMessageReader } from 'vscode-jsonrpc/node';
import { compactPolicyWithRules } from '../../../bench/policy-data.mjs';
import { PARAMS } from '../src/params';
import { SERVER_BIN } from './harness';

/** Hang catcher: ten times what any single answer here takes on a loaded machine. */
const HANG_MS = 20_000;

interface Raw {
  child: ChildProcess;
  messages: any[];
  stderr(): string;
  write(bytes: string | Buffer): void;
  frame(message: unknown): string;
  send(message: unknown): void;
  /** The first message at index `since` or later that `pred` accepts. */
  next(pred: (m: any) => boolean, since?: number): Promise<any>;
  request(method: string, params?: unknown): Promise<any>;
  exited: Promise<number | null>;
}

const servers: Raw[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.child.kill();
});

let ids = 1000;

function spawnRaw(): Raw {
  const child = spawn(process.execPath, [SERVER_BIN, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  const messages: any[] = [];
  const waiters: Array<() => void> = [];
  const frame = (message: unknown) => {
    const body = Buffer.from(typeof message === 'string' ? message : JSON.stringify(message), 'utf8');
    return `Content-Length: ${body.length}\r\n\r\n${body.toString('utf8')}`;
  };
  const raw: Raw = {
    child, messages, stderr: () => stderr, frame,
    write: (bytes) => { child.stdin!.write(bytes); },
    send: (message) => { child.stdin!.write(frame(message)); },
    next(pred, since = 0) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such message within ${HANG_MS} ms; stderr:\n${stderr.slice(-2000)}\nmessages: ${JSON.stringify(messages.slice(since)).slice(0, 1500)}`)), HANG_MS);
        const look = () => {
          const found = messages.slice(since).find(pred);
          if (!found) return false;
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        if (!look()) waiters.push(look);
      });
    },
    async request(method, params) {
      const id = ids++;
      raw.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      return raw.next((m) => m.id === id && !m.method);
    },
    exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
  };
  new StreamMessageReader(child.stdout!).listen((m: any) => {
    messages.push(m);
    // The server's own requests (configuration, registrations) get an empty answer.
    if (m.method && m.id !== undefined) raw.send({ jsonrpc: '2.0', id: m.id, result: m.method === 'workspace/configuration' ? m.params.items.map(() => ({})) : null });
    for (let i = waiters.length - 1; i >= 0; i--) if (waiters[i]()) waiters.splice(i, 1);
  });
  servers.push(raw);
  return raw;
}

async function initialized(): Promise<Raw> {
  const s = spawnRaw();
  const init = await s.request('initialize', { processId: null, rootUri: null, capabilities: {} });
  expect(init.result.capabilities.documentFormattingProvider).toBe(true);
  s.send({ jsonrpc: '2.0', method: 'initialized', params: {} });
  return s;
}

/** The server still answers: a request gets its result. */
async function alive(s: Raw): Promise<void> {
  const r = await s.request('$/netpolicy/memoryUsage');
  expect(r.result.rss).toBeGreaterThan(0);
}

describe('framing (frame-guard.ts)', () => {
  const bad: Array<[string, string, RegExp]> = [
    ['a negative length', 'Content-Length: -5\r\n\r\n{"jsonrpc":"2.0"}', /Content-Length "-5" is not a number of bytes/],
    ['a length that is not a number', 'Content-Length: abc\r\n\r\n{}', /Content-Length "abc" is not a number of bytes/],
    ['no length', 'X-Other: 1\r\n\r\n{"jsonrpc":"2.0","id":77,"method":"shutdown"}', /a header without Content-Length/],
    ['a header line without a colon', 'garbage\r\nContent-Length: 2\r\n\r\n{}', /a header line without a colon \("garbage"\)/],
    ['a length over the limit', 'Content-Length: 99999999999\r\n\r\n{"jsonrpc":"2.0","id":78,"method":"shutdown"}', /Content-Length 99999999999 is over the limit of 268435456 bytes/],
    ['a charset other than UTF-8', 'Content-Type: application/vscode-jsonrpc; charset=utf-16\r\nContent-Length: 2\r\n\r\n{}', /charset "utf-16" is not supported/],
  ];
  it.each(bad)('%s is logged (stderr and the client log) and skipped; the next frame is read', async (_name, bytes, said) => {
    const s = await initialized();
    const since = s.messages.length;
    s.write(bytes);
    await alive(s);
    expect(s.stderr()).toMatch(said);
    const logged = await s.next((m) => m.method === 'window/logMessage' && /bad frame skipped/.test(m.params.message), since);
    expect(logged.params.message).toMatch(said);
    // Its body was not read as a message (no shutdown happened).
    await alive(s);
  });

  it('blank lines between frames, a header split byte by byte, and two frames in one write are read', async () => {
    const s = await initialized();
    const one = s.frame({ jsonrpc: '2.0', id: 1, method: '$/netpolicy/memoryUsage' });
    for (const ch of `\r\n${one}`) s.write(ch);
    s.write(`${s.frame({ jsonrpc: '2.0', id: 2, method: '$/netpolicy/memoryUsage' })}\r\n${s.frame({ jsonrpc: '2.0', id: 3, method: '$/netpolicy/memoryUsage' })}`);
    for (const id of [1, 2, 3]) expect((await s.next((m) => m.id === id)).result.rss).toBeGreaterThan(0);
    expect(s.stderr()).not.toMatch(/bad frame/);
  });

  it('a header with no end is refused past 8 KiB and read in linear time (32 MiB of it, then a request)', async () => {
    const s = await initialized();
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const started = performance.now();
    for (let i = 0; i < 512; i++) s.write(chunk);
    await alive(s);
    // About a second here; the quadratic scan took 70 s for 64 MiB.
    expect(performance.now() - started).toBeLessThan(HANG_MS);
    // One run of noise: one report.
    expect(s.stderr().split('\n').filter((l) => /bad header|bad frame/.test(l))).toEqual([expect.stringMatching(/bad frame skipped: a header longer than 8192 bytes; header "xxxx/)]);
    // Bad headers one after the other: the first is reported, the others counted at the next good frame.
    s.write('Content-Length: -1\r\n\r\nContent-Length: -2\r\n\r\nContent-Length: -3\r\n\r\n');
    await alive(s);
    expect(s.stderr()).toMatch(/Content-Length "-1" is not a number of bytes[^\n]*\n[^\n]*2 more bad headers skipped before this frame/);
  });
});

describe('messages (message-gate.ts)', () => {
  it('a body that is not JSON is a ParseError, a batch, a non-object or a bad id an InvalidRequest, all with id null', async () => {
    const s = await initialized();
    const cases: Array<[string, number]> = [
      ['{"jsonrpc": "2.0", "id": 5, "method": ', -32700],
      ['', -32700],
      [JSON.stringify([{ jsonrpc: '2.0', id: 6, method: '$/netpolicy/memoryUsage' }, { jsonrpc: '2.0', id: 7, method: '$/netpolicy/memoryUsage' }]), -32600],
      ['42', -32600],
      ['{"jsonrpc": "2.0", "id": {"a": 1}, "method": "textDocument/hover"}', -32600],
    ];
    for (const [body, code] of cases) {
      const since = s.messages.length;
      s.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      const answer = await s.next((m) => m.id === null && m.error, since);
      expect(answer.error.code).toBe(code);
    }
    // A request that is not JSON-RPC 2.0 is answered with its id; such a notification is only logged.
    s.write(s.frame('{"jsonrpc": "1.0", "method": "textDocument/hover"}'));
    s.write(s.frame('{"jsonrpc": "1.0", "id": 9, "method": "textDocument/hover"}'));
    expect((await s.next((m) => m.id === 9)).error.code).toBe(-32600);
    expect(s.stderr()).toContain('an invalid message refused: {"jsonrpc":"1.0","method":"textDocument/hover"}');
    // The batch's requests were not run one by one.
    expect(s.messages.some((m) => m.id === 6 || m.id === 7)).toBe(false);
    await alive(s);
  });

  it('the lifecycle: ServerNotInitialized before initialize (shutdown too), notifications dropped, a second initialize refused, InvalidRequest after shutdown, exit 0', async () => {
    const s = spawnRaw();
    const uri = 'file:///w/early.netpolicy.json';
    expect((await s.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 0 } })).error.code).toBe(-32002);
    expect((await s.request('shutdown')).error.code).toBe(-32002);
    s.send({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'json', version: 1, text: '{"presets": ["nope"]}' } } });
    // initialize's params are checked before vscode-languageserver reads them (it read params.trace of null: a TypeError, -32603).
    for (const [params, message] of [[undefined, 'params must be an object'], [{}, 'params.capabilities is missing'], [{ processId: 'x', capabilities: {} }, 'params.processId must be an integer'], [{ capabilities: {}, trace: 'loud' }, 'params.trace must be one of "off", "messages", "verbose"']] as const) {
      expect((await s.request('initialize', params)).error).toEqual({ code: -32602, message: `initialize: ${message}` });
    }
    const init = await s.request('initialize', { processId: null, rootUri: null, capabilities: {} });
    expect(init.result.serverInfo.name).toBe('netpolicy-language-server');
    s.send({ jsonrpc: '2.0', method: 'initialized', params: {} });
    const again = await s.request('initialize', { processId: null, rootUri: null, capabilities: {} });
    expect(again.error).toMatchObject({ code: -32600, message: expect.stringContaining('initialize was already received') });
    // The didOpen before initialize was dropped: the server does not know the document.
    expect((await s.request('textDocument/documentSymbol', { textDocument: { uri } })).result).toEqual([]);
    const later = 'file:///w/later.netpolicy.json';
    s.send({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: later, languageId: 'json', version: 1, text: '{"presets": ["npm"]}' } } });
    expect((await s.request('textDocument/documentSymbol', { textDocument: { uri: later } })).result.map((x: any) => x.name)).toEqual(['presets']);
    expect((await s.request('shutdown')).result).toBeNull();
    expect((await s.request('textDocument/documentSymbol', { textDocument: { uri: later } })).error.code).toBe(-32600);
    expect((await s.request('shutdown')).error.code).toBe(-32600);
    expect(s.messages.some((m) => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri)).toBe(false);
    s.send({ jsonrpc: '2.0', method: 'exit' });
    expect(await s.exited).toBe(0);
  });
});

describe('params (params.ts)', () => {
  const requests = Object.keys(PARAMS).filter((m) => !['initialize', 'initialized', 'shutdown', 'exit', 'textDocument/willSave'].includes(m) && !m.startsWith('$/') && !/did|workspaceTrust/.test(m));

  it.each([null, {}, 42, { textDocument: { uri: 7 } }])('every request with params %j is InvalidParams naming the member, never InternalError', async (params) => {
    const s = await initialized();
    for (const method of requests) {
      const answer = await s.request(method, params);
      expect(answer.error, method).toMatchObject({ code: -32602, message: expect.stringMatching(new RegExp(`^${method.replace('$', '\\$')}: params`)) });
    }
    expect(s.stderr()).not.toMatch(/TypeError|failed/);
  });

  it('malformed notifications are dropped with a log line, never fatal (didChangeWatchedFiles, didOpen, didChange, ...)', async () => {
    const s = await initialized();
    const uri = 'file:///w/a.netpolicy.json';
    s.send({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'json', version: 1, text: '{"presets": ["npm"]}' } } });
    const bad: Array<[string, unknown]> = [
      ['workspace/didChangeWatchedFiles', null], ['workspace/didChangeWatchedFiles', {}], ['workspace/didChangeWatchedFiles', { changes: [null] }],
      ['workspace/didChangeWatchedFiles', { changes: [{ uri: 42 }] }], ['textDocument/didOpen', { textDocument: { uri } }],
      ['textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: null }], ['textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: 5 }] }],
      ['textDocument/didClose', {}], ['workspace/didChangeConfiguration', 'x'], ['netpolicy/workspaceTrust', { trusted: 'yes' }],
      ['workspace/didChangeWorkspaceFolders', { event: { added: [{}] } }], ['$/cancelRequest', { id: null }],
    ];
    for (const [method, params] of bad) s.send({ jsonrpc: '2.0', method, params });
    await alive(s);
    for (const [method] of bad.filter(([m]) => !m.startsWith('$/'))) expect(s.stderr()).toContain(`${method} dropped: params`);
    // The document is as opened (the bad didChange changed nothing).
    expect((await s.request('textDocument/documentSymbol', { textDocument: { uri } })).result.map((x: any) => x.detail)).toEqual(['1 enabled']);
    expect(s.child.exitCode).toBeNull();
  });
});

describe('fuzz: frames and params of every kind, split anywhere', () => {
  it('every request gets exactly one answer with its id, and the server keeps answering', async () => {
    const s = await initialized();
    const uri = 'file:///w/f.netpolicy.json';
    s.send({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'json', version: 1, text: '{"presets": ["npm"], "sources": [{"pypi": {"urls": ["https://p.example"]}}]}' } } });
    // Bodies of bad frames never hold `ontent-` (the guard looks for the next header there).
    const noise = fc.string({ unit: fc.constantFrom('{', '}', '"', ':', ',', 'a', '1', ' ', '\r', '\n', 'é', '\u0000', '[', ']') , maxLength: 40 });
    const requestMethods = [...Object.keys(PARAMS).filter((m) => m.includes('/') && !m.startsWith('$/') && !/did|workspaceTrust/.test(m)), 'netpolicy/unknown'];
    const notificationMethods = ['workspace/didChangeWatchedFiles', 'workspace/didChangeConfiguration', 'textDocument/didChange', 'textDocument/didClose', 'textDocument/willSave', '$/cancelRequest', 'netpolicy/unknownNote'];
    const params = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ textDocument: fc.oneof(fc.constant({ uri }), fc.jsonValue({ maxDepth: 1 })), position: fc.oneof(fc.record({ line: fc.nat(3), character: fc.nat(80) }), fc.jsonValue({ maxDepth: 1 })), options: fc.oneof(fc.constant({ tabSize: 2, insertSpaces: true }), fc.jsonValue({ maxDepth: 1 })), changes: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
    );
    type Frame = { kind: 'request'; method: string; params: unknown } | { kind: 'notification'; method: string; params: unknown } | { kind: 'raw'; bytes: string; answered: boolean };
    const frame: fc.Arbitrary<Frame> = fc.oneof(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('request' as const), method: fc.constantFrom(...requestMethods), params }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('notification' as const), method: fc.constantFrom(...notificationMethods), params }) },
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom('Content-Length: -5', 'Content-Length: abc', 'Content-Length: 1e3', 'X: y', 'nocolon', 'Content-Length: 99999999999', 'Content-Length: 2\r\nContent-Length: 3'), noise)
        .map(([header, body]) => ({ kind: 'raw' as const, bytes: `${header}\r\n\r\n${body}`, answered: false })) },
      { weight: 2, arbitrary: fc.oneof(noise.filter((b) => { try { JSON.parse(b); return false; } catch { return true; } }), fc.jsonValue({ maxDepth: 2 }).filter((v) => !(v && typeof v === 'object' && !Array.isArray(v))).map((v) => JSON.stringify(v)))
        .map((body) => ({ kind: 'raw' as const, bytes: `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`, answered: true })) },
    );
    await fc.assert(fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 12 }), fc.array(fc.nat(), { maxLength: 6 }), async (frames, cuts) => {
      const since = s.messages.length;
      const sent: number[] = [];
      let nullAnswers = 0;
      let bytes = '';
      for (const f of frames) {
        if (f.kind === 'raw') {
          bytes += f.bytes;
          if (f.answered) nullAnswers++;
        } else {
          const id = f.kind === 'request' ? ids++ : undefined;
          if (id !== undefined) sent.push(id);
          bytes += s.frame({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), method: f.method, ...(f.params === undefined ? {} : { params: f.params }) });
        }
      }
      const buffer = Buffer.from(bytes, 'utf8');
      let at = 0;
      for (const cut of [...cuts.map((c) => c % (buffer.length + 1))].sort((a, b) => a - b)) {
        s.write(buffer.subarray(at, cut));
        at = cut;
      }
      s.write(buffer.subarray(at));
      await alive(s);
      for (const id of sent) await s.next((m) => m.id === id && !m.method, since);
      const answers = s.messages.slice(since).filter((m) => !m.method && m.id !== null);
      for (const id of sent) expect(answers.filter((m) => m.id === id)).toHaveLength(1);
      for (const a of answers) if (a.error) expect(a.error.code).not.toBe(-32603);
      await s.next(() => s.messages.slice(since).filter((m) => !m.method && m.id === null).length >= nullAnswers, since);
    }), { numRuns: 60 });
    expect(s.stderr()).not.toMatch(/TypeError|failed:/);
    expect(s.child.exitCode).toBeNull();
  }, 120_000);
});

describe('large documents do not hold up the other requests', () => {
  const text = compactPolicyWithRules(80000, { shape: 'mixed' });

  it('formatting an 8 MB policy: a request sent after it is answered first; its answer is one edit; a newer version answers ContentModified, a cancel RequestCancelled', async () => {
    const s = await initialized();
    const uri = 'file:///w/big.netpolicy.json';
    s.send({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'json', version: 1, text } } });
    await s.next((m) => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri);
    const since = s.messages.length;
    s.send({ jsonrpc: '2.0', id: 1, method: 'textDocument/formatting', params: { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } } });
    s.send({ jsonrpc: '2.0', id: 2, method: 'textDocument/documentSymbol', params: { textDocument: { uri } } });
    s.send({ jsonrpc: '2.0', id: 3, method: '$/netpolicy/memoryUsage' });
    const formatted = await s.next((m) => m.id === 1, since);
    await s.next((m) => m.id === 2, since);
    const order = s.messages.slice(since).filter((m) => [1, 2, 3].includes(m.id)).map((m) => m.id);
    expect(order.indexOf(3)).toBeLessThan(order.indexOf(1));
    // One edit, of the span from the first change (after the opening brace) to the last (before the closing one).
    expect(formatted.result).toHaveLength(1);
    const { range, newText } = formatted.result[0];
    expect(range).toEqual({ start: { line: 0, character: 1 }, end: { line: 0, character: text.length - 1 } });
    expect(`{${newText}}`).toBe(JSON.stringify(JSON.parse(text), null, 2));
    const symbols = (await s.next((m) => m.id === 2, since)).result;
    expect(symbols.map((x: any) => [x.name, x.children?.length])).toEqual([['default', undefined], ['presets', 2], ['sources', 48000], ['connections', 32000]]);
    // A change while formatting runs: the answer is ContentModified.
    s.send({ jsonrpc: '2.0', id: 4, method: 'textDocument/formatting', params: { textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } } });
    s.send({ jsonrpc: '2.0', method: 'textDocument/didChange', params: { textDocument: { uri, version: 2 }, contentChanges: [{ range: { start: { line: 0, character: 1 }, end: { line: 0, character: 1 } }, text: ' ' }] } });
    expect((await s.next((m) => m.id === 4, since)).error.code).toBe(-32801);
    // Cancelled while it runs: RequestCancelled.
    s.send({ jsonrpc: '2.0', id: 5, method: 'textDocument/formatting', params: { textDocument: { uri }, options: { tabSize: 3, insertSpaces: true } } });
    s.send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 5 } });
    expect((await s.next((m) => m.id === 5, since)).error.code).toBe(-32800);
  }, 120_000);
});
