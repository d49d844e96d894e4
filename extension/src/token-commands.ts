/**
 * The API token commands (Set API Token, Sign Out) and what Fetch Job Trace needs of them: the
 * service's origin from `netpolicy.baseUrl` and the token stored for that origin alone
 * (token-origin.ts holds the rules). Tokens live in VS Code's secret storage, never in settings.
 */
import * as vscode from 'vscode';
import { LEGACY_TOKEN_KEY, describeScope, legacyTokenOrigin, originOf, scopeOf, tokenKey, withOrigin, withoutOrigin, type SettingScope } from './token-origin';
import { log } from './output';
import { labelText, messageText, showInfo, showWarning } from './notify';

export const TOKEN_ORIGINS_KEY = 'netpolicy.tokenOrigins';
/** The base URL each origin's token was entered with (origin -> URL), beside the secrets. */
export const TOKEN_BASE_URLS_KEY = 'netpolicy.tokenBaseUrls';

/** The service's origin from `netpolicy.baseUrl`, with where that value came from. */
export function serviceOrigin(): { origin: string; baseUrl: string; where: string; scope: SettingScope } | { problem: string } {
  const config = vscode.workspace.getConfiguration('netpolicy');
  const baseUrl = (config.get<string>('baseUrl') ?? '').trim();
  const o = originOf(baseUrl);
  if (o.problem !== undefined) return { problem: o.problem };
  const scope = scopeOf(config.inspect<string>('baseUrl'));
  return { origin: o.origin, baseUrl, where: describeScope(scope), scope };
}

/**
 * A token of an earlier version (stored for no origin) is bound once to the origin of the user's
 * own netpolicy.baseUrl (user settings, never a workspace's), else dropped: it is asked for again,
 * naming the origin.
 */
async function migrateLegacyToken(context: vscode.ExtensionContext): Promise<void> {
  const legacy = await context.secrets.get(LEGACY_TOKEN_KEY);
  if (legacy === undefined) return;
  const origin = legacyTokenOrigin(vscode.workspace.getConfiguration('netpolicy').inspect<string>('baseUrl'));
  if (origin && (await context.secrets.get(tokenKey(origin))) === undefined) {
    await context.secrets.store(tokenKey(origin), legacy);
    await context.globalState.update(TOKEN_ORIGINS_KEY, withOrigin(context.globalState.get<unknown[]>(TOKEN_ORIGINS_KEY, []), origin));
    log(`the stored API token is now bound to ${origin} (the origin of netpolicy.baseUrl in your user settings)`);
  } else {
    log('the stored API token was entered for no particular origin and is no longer used; set it again for the service you use');
  }
  await context.secrets.delete(LEGACY_TOKEN_KEY);
}

export async function tokenFor(context: vscode.ExtensionContext, origin: string): Promise<string | undefined> {
  await migrateLegacyToken(context);
  return context.secrets.get(tokenKey(origin));
}

/** Asks for the token of `origin` (the prompt names it and where that origin was chosen) and stores it for that origin only. */
export async function askToken(context: vscode.ExtensionContext, origin: string, where: string, baseUrl?: string): Promise<string | undefined> {
  const token = await vscode.window.showInputBox({
    title: labelText(`netpolicy: API token for ${origin}`),
    prompt: messageText(`Bound to the origin ${origin} (netpolicy.baseUrl, ${where}): sent to no other origin; a different path on it named by a folder's settings gets it only after you agree, once per folder. Kept in VS Code's secret storage for this origin alone.`),
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'Enter the token' : /\s/.test(v.trim()) ? 'A token has no whitespace' : undefined),
  });
  if (token === undefined) return undefined;
  // Said apart from a first save: a message identical to one still shown may not show again.
  const replaced = (await context.secrets.get(tokenKey(origin))) !== undefined;
  await context.secrets.store(tokenKey(origin), token.trim());
  await context.globalState.update(TOKEN_ORIGINS_KEY, withOrigin(context.globalState.get<unknown[]>(TOKEN_ORIGINS_KEY, []), origin));
  if (baseUrl !== undefined) await context.globalState.update(TOKEN_BASE_URLS_KEY, { ...context.globalState.get<Record<string, unknown>>(TOKEN_BASE_URLS_KEY, {}), [origin]: baseUrl });
  void showInfo(`netpolicy: API token ${replaced ? 'replaced' : 'saved'} for ${origin}; it is sent to no other origin.`);
  return token.trim();
}

export async function setTokenCommand(context: vscode.ExtensionContext): Promise<void> {
  const service = serviceOrigin();
  if ('problem' in service) {
    const a = await showWarning(`netpolicy: ${service.problem}. A token is stored for the origin of netpolicy.baseUrl: set it first.`, 'Open Settings');
    if (a) await vscode.commands.executeCommand('workbench.action.openSettings', 'netpolicy.baseUrl');
    return;
  }
  await migrateLegacyToken(context);
  await askToken(context, service.origin, service.where, service.baseUrl);
}

export async function signOutCommand(context: vscode.ExtensionContext): Promise<void> {
  const origins = context.globalState.get<unknown[]>(TOKEN_ORIGINS_KEY, []).filter((o): o is string => typeof o === 'string');
  await context.secrets.delete(LEGACY_TOKEN_KEY);
  if (origins.length === 0) {
    void showInfo('netpolicy: no API token is stored.');
    return;
  }
  const all = 'Every origin';
  const picked = origins.length === 1 ? origins[0] : await vscode.window.showQuickPick([...origins, all], { title: 'netpolicy: remove the API token of which service?' });
  if (!picked) return;
  const removed = picked === all ? origins : [picked];
  let left: string[] = origins;
  for (const origin of removed) {
    await context.secrets.delete(tokenKey(origin));
    left = withoutOrigin(left, origin);
  }
  await context.globalState.update(TOKEN_ORIGINS_KEY, left);
  void showInfo(`netpolicy: signed out of ${removed.join(', ')} (API token removed).`);
}
