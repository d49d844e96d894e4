/**
 * Custom messages of the netpolicy language server, defined once for the server and its clients
 * (the VS Code extension imports this module). Each with its method, its types and its direction.
 */
import type { Denial } from '@netpolicy/language-service';

export type { Denial };

/**
 * `netpolicy/denials` (client -> server request): every denial the configured traces (`traces`
 * setting or `netpolicy.config.json`) get from the policy open at `uri`, with the nearest rule
 * and the smallest fix. Empty when no trace is configured.
 */
export const DenialsRequestMethod = 'netpolicy/denials';

export interface DenialsParams {
  uri: string;
}

export interface DenialsResult {
  /** The trace files that were evaluated. */
  traces: string[];
  observations: number;
  denials: Denial[];
  /** Denials left out of `denials` (at most 1,000 are listed). */
  more: number;
  /** Traces that could not be read or are not valid traces. */
  errors: Array<{ trace: string; message: string }>;
}

/** The settings of section `netpolicy` (workspace/configuration); absent or null means the default. */
export interface NetpolicySettings {
  presetCatalog?: string | null;
  filePatterns?: string[] | null;
  traces?: string[] | null;
  severity?: Record<string, string> | null;
}
