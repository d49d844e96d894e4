/**
 * The netpolicy language server to embed: `startServer(connection, host)` on a connection you make.
 * To run it as a program, start `@netpolicy/language-server/node` (`--stdio`, `--node-ipc`,
 * `--socket=PORT`) or load `@netpolicy/language-server/browser` as a worker script.
 * @module @netpolicy/language-server
 */
export { startServer, DEBOUNCE_MS, TRACE_DEBOUNCE_MS } from './server';
export { uriOnlyHost, joinPath, relativePath, type ServerHost } from './host';
export * from './protocol';
