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
const connection = createConnection(ProposedFeatures.all);
startServer(connection, nodeHost);
// Implementation-specific (`$/`): the process's memory, for the bench and for diagnosing leaks.
connection.onRequest('$/netpolicy/memoryUsage', () => process.memoryUsage());
