/**
 * What the desktop and the browser extension share: the language client's options, the language
 * of policy files, and the commands. Each entry (node.ts, web.ts) only says how the server starts.
 * No Node imports here: this module runs in VS Code for the Web too.
 */
import * as vscode from 'vscode';
import type { BaseLanguageClient, LanguageClientOptions } from 'vscode-languageclient';
import { PROJECT_CONFIG_FILE, parseProjectConfig } from '@netpolicy/core';
import { usableGlobPatterns } from '@netpolicy/core/internal';
import { SERVER_LANGUAGES, languageFor } from './languages';
import { registerCommands, type Platform } from './commands';
import { log, outputChannel } from './output';
import { ExplainPanel } from './explain-panel';
import { readWorkspaceFile } from './files';
import { showError, showWarning } from './notify';
import { registerPresetView } from './preset-view';
import { policyTestRunMiddleware } from './policy-test-runs';
import { registerShowReferences, showReferencesFeature } from './show-references';

export type ClientFactory = (options: LanguageClientOptions, context: vscode.ExtensionContext) => BaseLanguageClient | Promise<BaseLanguageClient>;

export interface NetpolicyApi {
  /** The running language client (undefined while the server is off). */
  client(): BaseLanguageClient | undefined;
  /** When activate() began (ms since epoch). */
  readonly activatedAt: number;
  /** When the first server start was asked for and when the client was running (ms since epoch). */
  readonly started: Promise<{ requestedAt: number; readyAt: number }>;
  /** How long activate() itself took (ms). */
  activationMs(): number;
  /** The explain report's panel last shown (tests drive it). */
  explainPanel(): ExplainPanel | undefined;
}

let client: BaseLanguageClient | undefined;

function serverEnabled(): boolean {
  return vscode.workspace.getConfiguration('netpolicy').get<boolean>('server.enable', true) !== false;
}

/** The project file is read whole up to this size (as the server reads it). */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/**
 * `filePatterns` of the editor setting (a restricted setting: a workspace's value is ignored in
 * Restricted Mode), else of netpolicy.config.json at the first workspace folder, read through the
 * read guard (in Restricted Mode: a regular file inside the folder, links resolved).
 */
async function filePatterns(platform: Platform): Promise<{ patterns: string[]; from: string }> {
  const fromSettings = vscode.workspace.getConfiguration('netpolicy').get<unknown>('filePatterns');
  if (Array.isArray(fromSettings) && fromSettings.length > 0) return { patterns: fromSettings.filter((g): g is string => typeof g === 'string'), from: 'netpolicy.filePatterns' };
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return { patterns: [], from: '' };
  const uri = vscode.Uri.joinPath(folder.uri, PROJECT_CONFIG_FILE);
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    return { patterns: [], from: '' };
  }
  try {
    // A FIFO, a device, a huge file or a link leading outside is not read (the server says what is wrong with it).
    const text = new TextDecoder().decode(await readWorkspaceFile(uri, MAX_CONFIG_BYTES, platform));
    return { patterns: parseProjectConfig(text, uri.path).config.filePatterns ?? [], from: `filePatterns of ${PROJECT_CONFIG_FILE}` };
  } catch (e) {
    log(`${PROJECT_CONFIG_FILE} not read: ${e instanceof Error ? e.message : String(e)}`);
    return { patterns: [], from: '' };
  }
}

/** Gives each open document its language (netpolicy for policy files, json when the server is off). */
class LanguageAssigner {
  private patterns: string[] = [];
  /** The last problem said (a problem is shown once, not at every refresh). */
  private said = '';

  constructor(private readonly platform: Platform) {}

  async refresh(): Promise<void> {
    const { patterns, from } = await filePatterns(this.platform);
    // Bounded in all (core's MAX_TOTAL_EXPANSION): a glob bomb of 20,000 patterns is not compiled whole.
    const { usable, problems } = usableGlobPatterns(patterns);
    this.patterns = usable;
    const total = problems.find((p) => p.pattern === undefined);
    const said = total ? `${from}: ${total.message}` : problems.length ? `${from}: ${problems.length} pattern${problems.length === 1 ? '' : 's'} left out: ${problems[0].message}` : '';
    if (said && said !== this.said) {
      log(said);
      void showWarning(`netpolicy: ${said}.`);
    }
    this.said = said;
    for (const doc of vscode.workspace.textDocuments) await this.assign(doc);
  }

  async assign(doc: vscode.TextDocument): Promise<void> {
    if (doc.isClosed || doc.uri.scheme === 'output' || doc.uri.scheme === 'git') return;
    const isOurs = SERVER_LANGUAGES.includes(doc.languageId);
    if (!isOurs && doc.languageId !== 'json' && doc.languageId !== 'jsonc') return;
    const root = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.path;
    const wanted = languageFor(doc.uri.path, { root, filePatterns: this.patterns, serverEnabled: serverEnabled() });
    if (wanted && wanted !== doc.languageId) {
      try {
        await vscode.languages.setTextDocumentLanguage(doc, wanted);
      } catch (e) {
        log(`could not set the language of ${doc.uri.toString(true)}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
}

/** `netpolicy/workspaceTrust` (client -> server notification): the folder was trusted or not. */
const WORKSPACE_TRUST_METHOD = 'netpolicy/workspaceTrust';

const RESTRICTED_TOOLTIP = 'Restricted Mode: this folder is not trusted. netpolicy checks policy files, but reads no trace, no preset catalog and no path named by netpolicy.config.json, and Fetch Job Trace is off. Click to manage workspace trust.';

/** The status bar item shown with a policy editor: says once what Restricted Mode turns off. */
function trustStatus(context: vscode.ExtensionContext): void {
  const item = vscode.window.createStatusBarItem('netpolicy.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'netpolicy';
  const update = () => {
    const trusted = vscode.workspace.isTrusted;
    item.text = trusted ? '$(shield) netpolicy' : '$(workspace-untrusted) netpolicy: restricted';
    item.tooltip = trusted ? 'netpolicy: traces, preset catalogs and Fetch Job Trace are available (trusted folder).' : RESTRICTED_TOOLTIP;
    item.command = trusted ? 'netpolicy.showOutput' : 'workbench.trust.manage';
    const doc = vscode.window.activeTextEditor?.document;
    if (doc && SERVER_LANGUAGES.includes(doc.languageId)) item.show();
    else item.hide();
  };
  update();
  context.subscriptions.push(item, vscode.window.onDidChangeActiveTextEditor(update), vscode.workspace.onDidGrantWorkspaceTrust(update), vscode.workspace.onDidOpenTextDocument(() => update()));
}

export async function activateWith(context: vscode.ExtensionContext, createClient: ClientFactory, platform: Platform = {}): Promise<NetpolicyApi> {
  const activatedAt = Date.now();
  const channel = outputChannel();
  context.subscriptions.push(channel);
  let resolveStarted!: (t: { requestedAt: number; readyAt: number }) => void;
  const started = new Promise<{ requestedAt: number; readyAt: number }>((r) => (resolveStarted = r));
  let activationMs = -1;

  const assigner = new LanguageAssigner(platform);
  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument(async (d) => {
      await assigner.assign(d);
      if (SERVER_LANGUAGES.includes(d.languageId)) await startClient();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('netpolicy.filePatterns')) await assigner.refresh();
      if (e.affectsConfiguration('netpolicy.server.enable')) {
        if (!serverEnabled()) await stopClient();
        await assigner.refresh();
        if (serverEnabled() && vscode.workspace.textDocuments.some((d) => SERVER_LANGUAGES.includes(d.languageId))) await startClient();
      }
    }),
  );
  const configWatcher = vscode.workspace.createFileSystemWatcher(`**/${PROJECT_CONFIG_FILE}`);
  context.subscriptions.push(configWatcher, configWatcher.onDidChange(() => assigner.refresh()), configWatcher.onDidCreate(() => assigner.refresh()));

  const clientOptions: LanguageClientOptions = {
    // Every scheme: file on the desktop, vscode-vfs and others in the browser.
    documentSelector: SERVER_LANGUAGES.map((language) => ({ language })),
    outputChannel: channel,
    markdown: { isTrusted: false, supportHtml: false },
    // Untrusted: the server reads no trace, catalog or path named by netpolicy.config.json.
    initializationOptions: () => ({ workspaceTrusted: vscode.workspace.isTrusted }),
    // A test file's lens runs its tests: the outcome is said in the status bar.
    middleware: policyTestRunMiddleware,
  };
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => {
    void client?.sendNotification(WORKSPACE_TRUST_METHOD, { trusted: true }).catch(() => undefined);
  }));
  trustStatus(context);

  let starting: Promise<void> | undefined;
  function startClient(): Promise<void> {
    if (client || !serverEnabled()) return Promise.resolve();
    return (starting ??= doStart().finally(() => { starting = undefined; }));
  }

  async function doStart(): Promise<void> {
    const requestedAt = Date.now();
    try {
      client = await createClient(clientOptions, context);
      client.registerFeature(showReferencesFeature());
      await client.start();
      const now = Date.now();
      log(`language server running (started in ${now - requestedAt} ms)`);
      resolveStarted({ requestedAt, readyAt: now });
    } catch (e) {
      client = undefined;
      log(`the language server did not start: ${e instanceof Error ? e.message : String(e)}`);
      void showError('netpolicy: the language server did not start; see the netpolicy output.', 'Show Output').then((a) => a && channel.show());
    }
  }

  async function stopClient(): Promise<void> {
    // A start under way ends first (else its client would run on, the server turned off).
    if (starting) await starting;
    const c = client;
    client = undefined;
    if (c) await c.stop().catch(() => undefined);
  }

  context.subscriptions.push(
    vscode.commands.registerCommand('netpolicy.showOutput', () => channel.show(true)),
    vscode.commands.registerCommand('netpolicy.restartServer', async () => {
      await stopClient();
      await startClient();
    }),
    { dispose: () => void stopClient() },
  );
  registerCommands(context, platform);
  registerPresetView(context, () => client);
  registerShowReferences(context, () => client);

  await assigner.refresh();
  // The server starts with the first policy document (a workspace of other JSON costs nothing).
  const policyOpen = vscode.workspace.textDocuments.some((d) => SERVER_LANGUAGES.includes(d.languageId));
  activationMs = Date.now() - activatedAt;
  if (policyOpen) await startClient();
  return { client: () => client, activatedAt, started, activationMs: () => activationMs, explainPanel: () => ExplainPanel.current };
}

export async function deactivateClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.stop();
}
