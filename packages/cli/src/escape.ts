/** Escaping of outside text for terminals and CI logs: core's one escaping (see core's text/escape.ts). */
export { escapeControl } from '@netpolicy/core';
export { clipped } from '@netpolicy/core/internal';
