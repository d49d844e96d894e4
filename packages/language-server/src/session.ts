/**
 * The session: what the client can do (negotiated once, at `initialize`), whether the editor
 * trusts the workspace, the editor's settings (section `netpolicy`), where the server is in its
 * lifecycle, and the server's words to the person: log lines and notifications, which the
 * connection's sink escapes and cuts (sink.ts).
 */
import type { ClientFeatures } from '@netpolicy/language-service';
import { ResponseError, type Connection, type InitializeParams } from 'vscode-languageserver';
import { Lifecycle } from './lifecycle';
import type { NetpolicyInitializationOptions, NetpolicySettings } from './protocol';

/** How long to wait for the client's answer to workspace/configuration. */
const CONFIGURATION_TIMEOUT_MS = 2000;

/** What the client can do, from `initialize`'s capabilities. */
export interface ClientAbilities {
  /** It may answer workspace/configuration (unless it says it cannot: Neovim 0.7 answers without saying so). */
  canPullConfiguration: boolean;
  /** It said it answers workspace/configuration (else it is asked without waiting, and a null answer changes nothing). */
  configurationAdvertised: boolean;
  canRegisterConfiguration: boolean;
  /** It takes CodeAction literals (else code actions are commands: APPLY_EDIT_COMMAND). */
  codeActionLiterals: boolean;
  /** What it can show (snippets, Markdown), for the language service. */
  features: ClientFeatures | undefined;
  canFollowFolders: boolean;
  canRefreshLenses: boolean;
  canRefreshInlayHints: boolean;
  canWatchFiles: boolean;
  /** It takes `documentChanges` in a WorkspaceEdit (edits at a document's version). */
  documentChanges: boolean;
  /** The client-side commands it runs, as rust-analyzer's clients say them (`experimental.commands.commands`): a count lens opens references through one. */
  clientCommands: readonly string[];
  /**
   * It pulls diagnostics (`textDocument.diagnostic`) and can be asked to pull again
   * (`workspace.diagnostics.refreshSupport`): diagnostics-out.ts keeps them for its pulls and
   * publishes none. Without refresh (Neovim 0.10) it keeps the push: what traces, settings or a
   * test file's policy change without an edit would otherwise stay unseen.
   */
  pullDiagnostics: boolean;
  /** It shows server-initiated progress (`window.workDoneProgress`; progress.ts). */
  workDoneProgress: boolean;
}

/** Before `initialize`. */
const UNKNOWN_CLIENT: ClientAbilities = {
  canPullConfiguration: false, configurationAdvertised: false, canRegisterConfiguration: false, codeActionLiterals: true,
  features: undefined, canFollowFolders: false, canRefreshLenses: false, canRefreshInlayHints: false, canWatchFiles: false, documentChanges: false, clientCommands: [],
  pullDiagnostics: false, workDoneProgress: false,
};

/** What a client can do, from its capabilities. */
export function negotiate(params: InitializeParams): ClientAbilities {
  const caps = params.capabilities ?? {};
  const hoverFormats = caps.textDocument?.hover?.contentFormat;
  const docFormats = caps.textDocument?.completion?.completionItem?.documentationFormat;
  const commands = (caps.experimental as { commands?: { commands?: unknown } } | null | undefined)?.commands?.commands;
  return {
    // Clients that do not advertise workspace/configuration often answer it all the same (Neovim 0.7
    // does, from its `settings`): pull unless the client says it cannot, and never wait long.
    canPullConfiguration: caps.workspace?.configuration !== false,
    configurationAdvertised: caps.workspace?.configuration === true,
    canRegisterConfiguration: caps.workspace?.didChangeConfiguration?.dynamicRegistration === true,
    codeActionLiterals: caps.textDocument?.codeAction?.codeActionLiteralSupport !== undefined,
    features: {
      snippets: caps.textDocument?.completion?.completionItem?.snippetSupport === true,
      completionMarkdown: !Array.isArray(docFormats) || docFormats.includes('markdown'),
      hoverMarkdown: !Array.isArray(hoverFormats) || hoverFormats.includes('markdown'),
    },
    canFollowFolders: caps.workspace?.workspaceFolders === true,
    canRefreshLenses: caps.workspace?.codeLens?.refreshSupport === true,
    canRefreshInlayHints: caps.workspace?.inlayHint?.refreshSupport === true,
    canWatchFiles: caps.workspace?.didChangeWatchedFiles?.dynamicRegistration === true,
    documentChanges: caps.workspace?.workspaceEdit?.documentChanges === true,
    clientCommands: Array.isArray(commands) ? commands.filter((c): c is string => typeof c === 'string').slice(0, 100) : [],
    pullDiagnostics: !!caps.textDocument?.diagnostic && typeof caps.textDocument.diagnostic === 'object' && caps.workspace?.diagnostics?.refreshSupport === true,
    workDoneProgress: caps.window?.workDoneProgress === true,
  };
}

/** A piece of work given up (a trace evaluation overtaken by an edit): not a failure, said to nobody. */
export class Cancelled extends Error {}

/** Fire-and-forget a message to the client: a connection closed meanwhile is not an error worth more than silence. */
export function quietly(sent: PromiseLike<unknown> | void): void {
  if (sent && typeof (sent as Promise<unknown>).then === 'function') (sent as Promise<unknown>).then(undefined, () => undefined);
}

export class Session {
  /** Negotiated once, at `initialize`. */
  client: ClientAbilities = UNKNOWN_CLIENT;
  /**
   * Whether the editor trusts the workspace (initializationOptions.workspaceTrusted, then
   * netpolicy/workspaceTrust). Untrusted: no path from settings or a project file is read.
   */
  trusted = true;
  editorSettings: NetpolicySettings = {};
  /** For a connection without the message gate (an embedder's): the same rules (lifecycle.ts). */
  readonly lifecycle = new Lifecycle();
  /** False until the first settings (editor and project file) are applied: no publish under defaults that are about to change. */
  settingsReady = false;
  /** Log lines written once (paths left unread in an untrusted workspace). */
  private readonly said = new Set<string>();

  constructor(private readonly connection: Connection) {}

  /** `initialize`: what the client can do, and the settings and trust it starts with. */
  initialize(params: InitializeParams): void {
    this.lifecycle.passed('initialize');
    this.client = Object.freeze(negotiate(params));
    const init = params.initializationOptions as NetpolicyInitializationOptions | null | undefined;
    if (init && typeof init === 'object' && init.settings && typeof init.settings === 'object' && !Array.isArray(init.settings)) this.editorSettings = init.settings;
    if (init && typeof init === 'object' && init.workspaceTrusted === false) this.trusted = false;
  }

  /**
   * Refuses a request the lifecycle refuses (lifecycle.ts): before `initialize` (ServerNotInitialized),
   * a second `initialize`, and any request after `shutdown` (InvalidRequest).
   */
  alive(method: string): void {
    const refused = this.lifecycle.refusal(method);
    if (refused) throw new ResponseError(refused.code, `netpolicy-language-server: ${refused.message}`);
  }

  /** `shutdown` (refused before `initialize` and the second time). */
  shutdown(): void {
    this.alive('shutdown');
    this.lifecycle.passed('shutdown');
  }

  get shutDown(): boolean {
    return this.lifecycle.shutDown;
  }

  /**
   * In Restricted Mode a workspace file is read only when it is inside its workspace folder once
   * every symbolic link is resolved (host.ts, `within`); in a trusted one the user chose the paths.
   */
  confined(root: string): string | undefined {
    return this.trusted ? undefined : root;
  }

  /** Logs to the client (escaped and cut by sink.ts); a connection already closed swallows it (logging must never throw). */
  log(message: string, error = false): void {
    try {
      if (error) this.connection.console.error(`[netpolicy] ${message}`);
      else this.connection.console.log(`[netpolicy] ${message}`);
    } catch {
      // closed connection
    }
  }

  /** Logs a line not logged before. */
  logOnce(message: string): void {
    if (this.firstTime(message)) this.log(message);
  }

  /** True the first time a message is given (then it counts as said). */
  firstTime(message: string): boolean {
    if (this.said.has(message)) return false;
    this.said.add(message);
    return true;
  }

  /** Whether a message was said already (see `firstTime`). */
  saidBefore(message: string): boolean {
    return this.said.has(message);
  }

  warn(message: string): void {
    quietly(this.connection.window.showWarningMessage(message));
  }

  showError(message: string): void {
    quietly(this.connection.window.showErrorMessage(message));
  }

  /** Runs a handler; an exception is logged and answered with `fallback` (the server never dies of one). */
  guard<T>(what: string, fallback: T, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof Cancelled) return fallback;
      this.log(`${what} failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`, true);
      return fallback;
    }
  }

  /** Asks the client for the `netpolicy` section; true when the editor settings changed. */
  async pullEditorSettings(): Promise<boolean> {
    if (!this.client.canPullConfiguration || this.shutDown) return false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const value = await Promise.race([
        this.connection.workspace.getConfiguration({ section: 'netpolicy' }),
        new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), CONFIGURATION_TIMEOUT_MS); }),
      ]);
      if (value === undefined) return false;
      // A client that never said it answers (Neovim 0.7 does, from its `settings`) may answer null
      // for "I have none": that keeps what initializationOptions or a push gave.
      if ((value === null || typeof value !== 'object') && !this.client.configurationAdvertised) return false;
      const next = value && typeof value === 'object' ? (value as NetpolicySettings) : {};
      const changed = JSON.stringify(next) !== JSON.stringify(this.editorSettings);
      this.editorSettings = next;
      return changed;
    } catch (err) {
      if (this.client.configurationAdvertised) this.log(`workspace/configuration failed: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /** Asks the client to ask for code lenses again (trace usage changed). */
  /** What lenses and inlay hints show changed without an edit (traces evaluated, tests run, settings): clients that can are asked to ask again. */
  refreshViews(): void {
    if (this.client.canRefreshLenses) void this.connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
    if (this.client.canRefreshInlayHints) void this.connection.sendRequest('workspace/inlayHint/refresh').catch(() => undefined);
  }
}
