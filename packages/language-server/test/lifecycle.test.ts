/**
 * The lifecycle as LSP 3.17 states it, on the built server (`--stdio`): `exit` after `shutdown`
 * ends the process with code 0, `exit` alone with code 1, and no signal ends it, whatever the
 * server is doing when the messages come: right after `initialize`, after `initialized`, while a
 * preset catalog of a few MB is read, while the workspace check goes through a few hundred policy
 * files, while a trace evaluation reads its traces. Each moment is repeated; no time is asserted
 * (the bounds below only stop a hung run). Then the rules themselves (lifecycle.ts), in-process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { EXIT_DRAIN_MS, Lifecycle, ProcessExit, type ProcessControl } from '../src/lifecycle';
import { SERVER_BIN, fileUri } from './harness';

/** Runs of each moment and ending. */
const REPEAT = 3;
/** A run that has not ended after this long is hung (a bound, not a measure). */
const HANG_MS = 60_000;
const POLICY_FILES = 300;
const TRACE_FILES = 12;
const OBSERVATIONS_PER_TRACE = 8_000;

const POLICY = '{\n  "presets": ["npm"],\n  "sources": [\n    { "pypi": { "urls": ["https://pypi.org", "http://pypi.internal.example"] } }\n  ]\n}\n';

let dir: string;

/** A workspace with a 3 MB preset catalog, a folder of traces, and POLICY_FILES policy files. */
function makeWorkspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'np-ls-lifecycle-'));
  const presets = [];
  for (let i = 0, size = 0; size < 3 * 1024 * 1024; i++) {
    const preset = { name: `preset-${i}`, description: `Preset ${i} of a big catalog.`, known: { sources: [{ npm: { urls: [`https://registry-${i}.example.com`, `https://mirror-${i}.example.com/npm`] } }] } };
    presets.push(preset);
    size += JSON.stringify(preset).length;
  }
  writeFileSync(join(root, 'catalog.json'), JSON.stringify({ version: 1, presets }));
  mkdirSync(join(root, 'traces'));
  for (let t = 0; t < TRACE_FILES; t++) {
    const observations = Array.from({ length: OBSERVATIONS_PER_TRACE }, (_, i) => ({
      protocol: 'http', observed_at: '2026-03-02T10:15:01.037Z', sequence: i + 1, method: 'GET', url: `https://host-${i % 500}.example.com/p/${i}`, denied: i % 3 === 0,
    }));
    writeFileSync(join(root, 'traces', `run-${t}.json`), JSON.stringify({ schema_version: '1.0', job: { provider: 'ciprovider', repository: 'acme/app', job_id: String(t), status: 'success' }, observations }));
  }
  for (let i = 0; i < POLICY_FILES; i++) {
    const folder = join(root, 'policies', `team-${i % 15}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `job-${i}.netpolicy.json`), POLICY.replace('pypi.internal', `pypi-${i}.internal`));
  }
  writeFileSync(join(root, 'ci.netpolicy.json'), POLICY);
  return root;
}

beforeAll(() => {
  dir = makeWorkspace();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The settings of every run: traces (read once a policy is open); the catalog only where its read is the moment (a catalog of a few MB makes every evaluation slow). */
const SETTINGS = { traces: ['traces'] };
const WITH_CATALOG = { ...SETTINGS, presetCatalog: 'catalog.json' };

interface Run {
  connection: MessageConnection;
  /** How the process ended. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null } | 'hung'>;
  pid: number;
  stderr: () => string;
  /** Resolves at the first publishDiagnostics for a URI that `which` accepts. */
  published(which: (uri: string) => boolean): Promise<void>;
  /** Resolves once the client has answered workspace/configuration (the server reads the catalog next). */
  configured: Promise<void>;
  kill(): void;
}

function start(settings: object): Run {
  const child = spawn(process.execPath, [SERVER_BIN, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += String(d); });
  const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  // A server that has ended is no client's business: writes to it fail, and that is fine here.
  connection.onError(() => undefined);
  child.stdin!.on('error', () => undefined);
  let configuredNow: () => void = () => undefined;
  const configured = new Promise<void>((resolve) => { configuredNow = resolve; });
  connection.onRequest('workspace/configuration', (p: { items: unknown[] }) => {
    setImmediate(configuredNow);
    return p.items.map(() => settings);
  });
  connection.onRequest(() => null);
  const waiters: Array<{ which: (uri: string) => boolean; resolve: () => void }> = [];
  connection.onNotification('textDocument/publishDiagnostics', (p: { uri: string }) => {
    for (const w of waiters.splice(0)) if (w.which(p.uri)) w.resolve(); else waiters.push(w);
  });
  connection.onNotification(() => undefined);
  connection.listen();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ended = Promise.race([exited, new Promise<'hung'>((resolve) => { timer = setTimeout(() => resolve('hung'), HANG_MS); })]).finally(() => clearTimeout(timer));
  return {
    connection, ended, pid: child.pid!, configured,
    stderr: () => stderr,
    published: (which) => new Promise((resolve) => waiters.push({ which, resolve })),
    kill: () => { connection.dispose(); child.kill('SIGKILL'); },
  };
}

/** Resolves once the process `pid` has a file under `folder` open (Linux: /proc); elsewhere, at once. */
async function readingFrom(pid: number, folder: string, ended: Promise<unknown>): Promise<void> {
  if (process.platform !== 'linux') return;
  let over = false;
  void ended.then(() => { over = true; });
  while (!over) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(folder)) return;
      } catch {
        // closed meanwhile
      }
    }
    await new Promise((r) => setTimeout(r, 2));
  }
}

const initializeParams = () => ({
  processId: null, rootUri: fileUri(dir), workspaceFolders: [{ uri: fileUri(dir), name: 'ws' }],
  capabilities: { workspace: { configuration: true, didChangeWatchedFiles: { dynamicRegistration: true }, codeLens: { refreshSupport: true } } },
});

/** The moments of start-up, each a way of bringing the server there. */
const MOMENTS: Array<[string, object, (run: Run) => Promise<void>]> = [
  ['right after initialize', SETTINGS, async (run) => {
    await run.connection.sendRequest('initialize', initializeParams());
  }],
  ['right after initialized', SETTINGS, async (run) => {
    await run.connection.sendRequest('initialize', initializeParams());
    await run.connection.sendNotification('initialized', {});
  }],
  ['while the preset catalog is read', WITH_CATALOG, async (run) => {
    await run.connection.sendRequest('initialize', initializeParams());
    await run.connection.sendNotification('initialized', {});
    await run.configured;
  }],
  ['while the workspace check runs', SETTINGS, async (run) => {
    await run.connection.sendRequest('initialize', initializeParams());
    // The first file of the workspace published: the check is under way (300 more to go).
    const checking = run.published((uri) => uri.includes('/policies/'));
    await run.connection.sendNotification('initialized', {});
    await checking;
  }],
  ['while a trace evaluation runs', SETTINGS, async (run) => {
    await run.connection.sendRequest('initialize', initializeParams());
    await run.connection.sendNotification('initialized', {});
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const published = run.published((u) => u === uri);
    await run.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'json', version: 1, text: POLICY } });
    await published;
    await readingFrom(run.pid, join(dir, 'traces'), run.ended);
  }],
];

describe.each(MOMENTS)('the process ends as LSP says, %s', (_moment, settings, bringThere) => {
  const endings = [
    ['shutdown, then exit once it is answered', 'answered', 0],
    ['shutdown and exit at once', 'at once', 0],
    ['exit alone', 'none', 1],
  ] as const;
  for (const [ending, shutdown, code] of endings) {
    it(`${ending}: code ${code}, no signal (${REPEAT} runs)`, async () => {
      const outcomes: unknown[] = [];
      for (let i = 0; i < REPEAT; i++) {
        const run = start(settings);
        try {
          await Promise.race([bringThere(run), run.ended]);
          if (shutdown === 'answered') await run.connection.sendRequest('shutdown');
          if (shutdown === 'at once') void run.connection.sendRequest('shutdown').catch(() => undefined);
          await run.connection.sendNotification('exit');
          const how = await run.ended;
          outcomes.push(how);
          if (how === 'hung' || how.code !== code) outcomes.push(run.stderr().slice(-2000));
        } finally {
          run.kill();
        }
      }
      expect(outcomes).toEqual(Array.from({ length: REPEAT }, () => ({ code, signal: null })));
    }, REPEAT * HANG_MS * 2);
  }
});

describe('Lifecycle: what each phase says of a message', () => {
  it('refuses requests before initialize and after shutdown, a second initialize; drops notifications outside running but exit', () => {
    const l = new Lifecycle();
    const verdicts = () => ({
      phase: l.phase, hover: l.refusal('textDocument/hover')?.code, initialize: l.refusal('initialize')?.code,
      didOpen: l.dropped('textDocument/didOpen'), exit: l.dropped('exit'), exitCode: l.exitCode,
    });
    const seen = [verdicts()];
    for (const method of ['initialize', 'shutdown', 'exit']) {
      l.passed(method);
      seen.push(verdicts());
    }
    expect(seen).toEqual([
      { phase: 'new', hover: -32002, initialize: undefined, didOpen: 'before initialize', exit: undefined, exitCode: 1 },
      { phase: 'running', hover: undefined, initialize: -32600, didOpen: undefined, exit: undefined, exitCode: 1 },
      { phase: 'shutdown', hover: -32600, initialize: -32600, didOpen: 'after shutdown', exit: undefined, exitCode: 0 },
      { phase: 'exited', hover: -32600, initialize: -32600, didOpen: 'after exit', exit: 'after exit', exitCode: 0 },
    ]);
  });
});

describe('ProcessExit: the process ends with its code once the thread pool is idle; SIGKILL only for a request stuck past the bound', () => {
  /** A process on a fake clock whose pool is busy for `busyFor` ms (Infinity: a thread stuck); each look comes `lag` ms late (a busy event loop). */
  function fakeProcess(busyFor: number, lag: number) {
    let now = 0;
    const timers: Array<{ at: number; fn: () => void }> = [];
    const ended: Array<string | number> = [];
    const control: ProcessControl = {
      exit: (code) => ended.push(code), kill: () => ended.push('SIGKILL'), poolBusy: () => now < busyFor,
      setExitCode: () => undefined, setTimeout: (fn, ms) => timers.push({ at: now + ms + lag, fn }), now: () => now, log: () => undefined,
    };
    const run = () => {
      for (let t; (t = timers.shift());) {
        now = Math.max(now, t.at);
        t.fn();
      }
    };
    return { control, ended, run };
  }

  it.each([
    ['an idle pool: at once', 0, 0, 0, [0]],
    ['a read in flight: once it is done', EXIT_DRAIN_MS / 4, 0, 1, [1]],
    ['a read done after the bound on the clock, on a loop too busy to look often: the code all the same', EXIT_DRAIN_MS * 1.5, 50, 0, [0]],
    ['a thread stuck (a FIFO): SIGKILL after the bound', Infinity, 0, 0, ['SIGKILL']],
    ['a thread stuck, on a busy loop: SIGKILL all the same', Infinity, 50, 1, ['SIGKILL']],
  ] as const)('%s', (_name, busyFor, lag, code, expected) => {
    const p = fakeProcess(busyFor, lag);
    let stopped = 0;
    const ending = new ProcessExit(p.control, () => { stopped++; });
    ending.exit(code);
    // The end of stdin after `exit` changes nothing: the first call decides.
    ending.exit(code === 0 ? 1 : 0);
    p.run();
    expect({ ended: p.ended, stopped, exiting: ending.exiting }).toEqual({ ended: expected, stopped: 1, exiting: code });
  });
});

describe('docs/editor.md', () => {
  it('states the exit codes and the bound before SIGKILL', () => {
    const page = readFileSync(new URL('../../../docs/editor.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(page).toContain('It ends with code 0 after `shutdown` and 1 without it');
    expect(page).toContain(`after ${EXIT_DRAIN_MS / 1000} seconds`);
  });
});
