/** @netpolicy/language-server: `startServer(connection, host)` for embedding and tests; entries in node.ts and browser.ts. */
export { startServer, DEBOUNCE_MS, TRACE_DEBOUNCE_MS } from './server';
export { uriOnlyHost, joinPath, relativePath, type ServerHost } from './host';
export * from './protocol';
