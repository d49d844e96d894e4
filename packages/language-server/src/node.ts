/**
 * Node entry of `netpolicy-language-server`: `--stdio`, `--node-ipc` or `--socket=N` (as
 * vscode-languageserver reads them).
 */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { nodeHost } from './node-host';
import { startServer } from './server';

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
// A server whose client is gone exits, whatever it is doing. vscode-languageserver calls
// process.exit on the `exit` notification, at the end of stdin (or of the socket) and when the
// client's process (initialize's processId, --clientProcessId) is gone; over node IPC, the channel
// closing is the client gone.
process.on('disconnect', () => process.exit(1));
// process.exit joins libuv's pool threads before the process ends (uv_library_shutdown): one
// parked in a blocking call (an `open` of a FIFO, a hung network file system) would keep a
// disposed server alive for ever. With file system work still in flight, the process ends at once.
process.on('exit', () => {
  if (process.getActiveResourcesInfo().some((r) => /^FSReq|^FileHandle|ReqWrap$/.test(r))) process.kill(process.pid, 'SIGKILL');
});
const connection = createConnection(ProposedFeatures.all);
startServer(connection, nodeHost);
// Implementation-specific (`$/`): the process's memory, for the bench and for diagnosing leaks.
connection.onRequest('$/netpolicy/memoryUsage', () => process.memoryUsage());
