/**
 * Custom messages of the netpolicy language server, defined once for the server and its clients
 * (the VS Code extension imports this module). Each with its method, its types and its direction.
 * @module @netpolicy/language-server/protocol
 */
import type { Denial } from '@netpolicy/language-service';

export type { Denial };

/**
 * `netpolicy/denials` (client -> server request): every denial the configured traces (`traces`
 * setting or `netpolicy.config.json`) get from the policy open at `uri`, with the nearest rule
 * and the smallest fix. Empty when no trace is configured.
 * @public
 */
export const DenialsRequestMethod = 'netpolicy/denials';

/**
 * The parameters of `netpolicy/denials`.
 * @public
 */
export interface DenialsParams {
  /** The policy document the denials are for. */
  uri: string;
}

/**
 * The answer to `netpolicy/denials`.
 * @public
 */
export interface DenialsResult {
  /** The trace files that were evaluated. */
  traces: string[];
  /** Observations read from them. */
  observations: number;
  denials: Denial[];
  /** Denials left out of `denials` (at most 1,000 are listed). */
  more: number;
  /** Traces that could not be read or are not valid traces. */
  errors: Array<{ trace: string; message: string }>;
}

/**
 * `netpolicy/presetDocument` (client -> server request): the text of a built-in preset's read-only
 * view, the target of go to definition on a built-in preset (`netpolicy-preset:/NAME.json`); null
 * for a URI that names no built-in preset.
 * @public
 */
export const PresetDocumentRequestMethod = 'netpolicy/presetDocument';

/**
 * The parameters of `netpolicy/presetDocument`.
 * @public
 */
export interface PresetDocumentParams {
  /** A `netpolicy-preset:/NAME.json` URI. */
  uri: string;
}

/**
 * The answer to `netpolicy/presetDocument`: the view's JSON text, or null.
 * @public
 */
export type PresetDocumentResult = { text: string } | null;

/**
 * A client-side command (runs in the client, never sent to the server): a count lens runs it with
 * `[uri, position]` to list the references at that position (`textDocument/references`, without
 * the declaration). A client that has it says so in its capabilities, as rust-analyzer's clients
 * do: `experimental.commands.commands` holds this name (the VS Code extension's does). Without it
 * a count lens is a title alone.
 * @public
 */
export const SHOW_REFERENCES_COMMAND = 'netpolicy.showReferences';

/**
 * The settings of section `netpolicy` (workspace/configuration); absent or null means the default.
 * @public
 */
export interface NetpolicySettings {
  presetCatalog?: string | null;
  filePatterns?: string[] | null;
  traces?: string[] | null;
  severity?: Record<string, string> | null;
  /**
   * Workspace diagnostics: the policy files of each workspace folder are checked from disk in the
   * background, open or not. `maxFiles`: at most this many files (default 500; 0 turns it off).
   */
  workspaceDiagnostics?: { maxFiles?: number | null } | null;
  /** Inlay hints, each kind on unless false: CIDR address counts, port services, what a preset adds, trace hits per rule. */
  inlayHints?: { addresses?: boolean; services?: boolean; presets?: boolean; traceHits?: boolean } | null;
}

/**
 * The `initializationOptions` the server reads (each optional; anything else is ignored).
 * @public
 */
export interface NetpolicyInitializationOptions {
  /** Section `netpolicy` until the first workspace/configuration answer (for clients that cannot answer it). */
  settings?: NetpolicySettings;
  /**
   * `false` when the editor does not trust the workspace: the server then reads no trace, no
   * preset catalog and no other path named by settings or `netpolicy.config.json` (the project
   * file itself is still read, for `severity` and `filePatterns`), and shows no trace lenses.
   * Absent: trusted (editors without a notion of trust are unchanged).
   */
  workspaceTrusted?: boolean;
}

/**
 * `netpolicy/workspaceTrust` (client -> server notification): the workspace's trust changed (VS
 * Code grants it after the server started). Trusted: catalogs and traces are read at once.
 * @public
 */
export const WorkspaceTrustNotificationMethod = 'netpolicy/workspaceTrust';

/**
 * The parameters of `netpolicy/workspaceTrust`.
 * @public
 */
export interface WorkspaceTrustParams {
  /** Whether the workspace is now trusted. */
  trusted: boolean;
}

/** Node's own size of V8's pool of background threads (`--v8-pool-size`), the most this asks for. */
const NODE_DEFAULT_POOL = 4;

/**
 * The Node.js options to start the server with (before its script) on a machine with `cores`
 * logical processors (`os.availableParallelism()`): V8's pool of background threads sized to leave
 * the server's main thread a core of its own (`--v8-pool-size`, cores - 1, at least 1, at most 4,
 * Node's default). With Node's 4 threads on a 2-core machine, the collector's background work ran
 * beside the request being answered and took the core from it: the slowest requests waited there
 * (docs/performance.md, issue 30, round five). The VS Code extension starts the server with these.
 * @public
 */
export function serverNodeOptions(cores: number): string[] {
  const n = Number.isFinite(cores) ? Math.floor(cores) : NODE_DEFAULT_POOL + 1;
  return [`--v8-pool-size=${Math.min(NODE_DEFAULT_POOL, Math.max(1, n - 1))}`];
}
