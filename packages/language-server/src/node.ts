/**
 * Node entry of `netpolicy-language-server`: `--stdio`, `--node-ipc` or `--socket=N` (as
 * vscode-languageserver reads them).
 */
import { inspect } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { createConnection, IPCMessageReader, IPCMessageWriter, ProposedFeatures, StreamMessageReader, type Connection } from 'vscode-languageserver/node';
import { FrameWriter } from './frame-writer';
import { FrameGuard } from './frame-guard';
import { tuneHeapGrowth } from './heap-growth';
import { GatedMessageReader } from './message-gate';
import { ProcessExit, isPoolRequest } from './lifecycle';
import { nodeHost } from './node-host';
import { createServer, type RunningServer } from './server';
import { guardMessages, logText } from './sink';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write('Usage: netpolicy-language-server --stdio | --node-ipc | --socket=PORT\n\nThe netpolicy language server (LSP 3.17) for policy files (*.netpolicy.json, *.netpolicy.jsonc, network-policy.json).\nSettings: section "netpolicy" (presetCatalog, filePatterns, traces, severity) and netpolicy.config.json at the workspace root.\nSee docs/editor.md.\n');
  process.exit(0);
}
if (argv.includes('--version')) {
  process.stdout.write('0.1.0\n');
  process.exit(0);
}
if (!argv.some((a) => a === '--stdio' || a === '--node-ipc' || a.startsWith('--socket') || a.startsWith('--pipe') || a.startsWith('--clientProcessId'))) {
  process.stderr.write('netpolicy-language-server: choose a transport: --stdio, --node-ipc or --socket=PORT (see --help)\n');
  process.exit(2);
}
// Fewer full collections landing on the requests that follow an edit (heap-growth.ts).
tuneHeapGrowth(process.execArgv, setFlagsFromString);
// A server whose client is gone exits, whatever it is doing. vscode-languageserver calls
// process.exit on the `exit` notification (0 after `shutdown`, else 1), at the end of its own input
// (--socket) and when the client's process (initialize's processId, --clientProcessId) is gone;
// node.ts at the end of stdin and when the node IPC channel closes. Every one of them goes through
// `ending` (lifecycle.ts): the exit code set, the work in flight stopped, then the process ends as
// soon as no file system request is in flight, or by SIGKILL if one still is after EXIT_DRAIN_MS
// (a pool thread parked in an `open` of a FIFO: process.exit would join it for ever).
let server: RunningServer | undefined;
const reallyExit = process.exit.bind(process);
const ending = new ProcessExit({
  exit: (code) => reallyExit(code),
  kill: () => process.kill(process.pid, 'SIGKILL'),
  poolBusy: () => process.getActiveResourcesInfo().some(isPoolRequest),
  setExitCode: (code) => { process.exitCode = code; },
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  now: () => Date.now(),
  log: (message) => process.stderr.write(`${logText(`netpolicy-language-server: ${message}`)}\n`),
}, () => server?.stop());
process.exit = ((code?: number | string | null) => ending.exit(Number(code ?? process.exitCode ?? 0) || 0)) as typeof process.exit;
// What does not come through process.exit (an uncaught exception) still ends without waiting on a stuck thread.
process.on('exit', () => {
  if (process.getActiveResourcesInfo().some(isPoolRequest)) process.kill(process.pid, 'SIGKILL');
});
let connection: Connection;
/** The message gate over stdio and node IPC: it knows whether `shutdown` came. */
let gate: GatedMessageReader | undefined;
// Over node IPC, the channel closing is the client gone.
process.on('disconnect', () => process.exit(gate?.shutDown ? 0 : 1));
if (argv.includes('--stdio') || argv.includes('--node-ipc')) {
  // Over stdio, frames are checked (frame-guard.ts) before vscode-jsonrpc's reader; over both,
  // messages are (message-gate.ts). Problems go to stderr and, once connected, to the client's log.
  let connected = false;
  const log = (message: string) => {
    process.stderr.write(`${logText(`netpolicy-language-server: ${message}`)}\n`);
    if (connected) {
      try {
        connection.console.warn(`[netpolicy] ${message}`);
      } catch {
        // closed connection
      }
    }
  };
  const stdio = argv.includes('--stdio');
  const writer = stdio ? new FrameWriter(process.stdout) : new IPCMessageWriter(process);
  const inner = stdio ? new StreamMessageReader(process.stdin.pipe(new FrameGuard(log))) : new IPCMessageReader(process);
  const reader = new GatedMessageReader(inner, writer, log);
  gate = reader;
  connection = createConnection(ProposedFeatures.all, reader, writer);
  // Log lines and notifications escaped from the first one (sink.ts).
  guardMessages(connection);
  connected = true;
  if (stdio) {
    // What vscode-languageserver does for --stdio when it makes the connection itself: the end of
    // the input ends the process (0 after shutdown), and console output, which would corrupt the
    // protocol on stdout, goes to the client's log.
    const ended = () => process.exit(reader.shutDown ? 0 : 1);
    process.stdin.on('end', ended);
    process.stdin.on('close', ended);
    const text = (args: unknown[]) => args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' ');
    console.log = console.info = console.debug = (...args: unknown[]) => connection.console.log(text(args));
    console.warn = (...args: unknown[]) => connection.console.warn(text(args));
    console.error = (...args: unknown[]) => connection.console.error(text(args));
  }
} else connection = createConnection(ProposedFeatures.all);
server = createServer(connection, nodeHost);
// Implementation-specific (`$/`): the process's memory, for the bench and for diagnosing leaks.
connection.onRequest('$/netpolicy/memoryUsage', () => process.memoryUsage());
