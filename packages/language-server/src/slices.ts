/**
 * Work done in slices (formatting, symbols, trace evaluation, the workspace check) reads the
 * server's other messages after this long (ms). Its own module: the request helpers and the trace
 * evaluator both use it, and neither imports the other.
 */
export const SLICE_MS = 10;
