/** Escaping of outside text for terminals and CI logs: core's one escaping (see core's text/escape.ts). */
export { clipped, escapeControl } from '@netpolicy/core';
