/**
 * Where an API token may go. A token is stored per origin (scheme, host and port of
 * `netpolicy.baseUrl` when it was entered) and is only ever handed to a client for that origin:
 * a workspace whose settings name another origin finds no token there and has to ask for one,
 * naming the origin. No VS Code here: the rules are unit-tested as plain functions.
 */

/** The key of the one token of earlier versions, entered for no particular origin. */
export const LEGACY_TOKEN_KEY = 'netpolicy.apiToken';

/** The secret storage key of the token entered for `origin` (as `URL.origin` spells it). */
export function tokenKey(origin: string): string {
  return `netpolicy.apiToken@${origin}`;
}

export type OriginResult = { origin: string; problem?: undefined } | { origin?: undefined; problem: string };

/**
 * The origin a base URL sends requests to, or why it is not usable. Only `https:` and `http:`
 * have an origin a token can be bound to; credentials in the URL are refused (the client refuses
 * them too, and a token prompt must not show them).
 */
export function originOf(baseUrl: string): OriginResult {
  const text = baseUrl.trim();
  if (text === '') return { problem: 'netpolicy.baseUrl is not set' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'netpolicy.baseUrl is not a URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: `netpolicy.baseUrl must be https (got ${url.protocol})` };
  if (url.username || url.password) return { problem: 'netpolicy.baseUrl must not contain credentials' };
  return { origin: url.origin };
}

/** Which settings scope gave `netpolicy.baseUrl` its value (the most specific one set). */
export type SettingScope = 'folder' | 'workspace' | 'user' | 'default';

export interface InspectedSetting<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export function scopeOf<T>(inspected: InspectedSetting<T> | undefined): SettingScope {
  if (!inspected) return 'default';
  if (inspected.workspaceFolderValue !== undefined) return 'folder';
  if (inspected.workspaceValue !== undefined) return 'workspace';
  if (inspected.globalValue !== undefined) return 'user';
  return 'default';
}

/** Words for a prompt: where the origin was chosen. A workspace's choice is said as such. */
export function describeScope(scope: SettingScope): string {
  switch (scope) {
    case 'folder': return "chosen by this folder's settings (.vscode/settings.json), not by you";
    case 'workspace': return "chosen by this workspace's settings, not by your user settings";
    case 'user': return 'from your user settings';
    default: return 'the default';
  }
}

/**
 * The origin a token of earlier versions (stored without one) is bound to when this version
 * first meets it: the origin of the user's own `netpolicy.baseUrl` (the user settings, never a
 * workspace's), or none, in which case the token is dropped and asked for again.
 */
export function legacyTokenOrigin(inspected: InspectedSetting<string> | undefined): string | undefined {
  const user = inspected?.globalValue;
  if (typeof user !== 'string') return undefined;
  return originOf(user).origin;
}

/** The list of origins that hold a token (kept beside the secrets, which cannot be listed). */
export function withOrigin(origins: readonly unknown[], origin: string): string[] {
  return [origin, ...origins.filter((o): o is string => typeof o === 'string' && o !== origin)].slice(0, 50);
}

export function withoutOrigin(origins: readonly unknown[], origin: string): string[] {
  return origins.filter((o): o is string => typeof o === 'string' && o !== origin);
}

/**
 * A base URL as a token's use is judged: origin and path, without a trailing slash, query or
 * fragment (`https://h/api/` and `https://h/api` are one); undefined when it is not a usable URL.
 */
export function baseUrlKey(baseUrl: string): string | undefined {
  const o = originOf(baseUrl);
  if (o.origin === undefined) return undefined;
  const path = new URL(baseUrl.trim()).pathname.replace(/\/+$/, '');
  return `${o.origin}${path}`;
}

/**
 * Whether the user is asked before the token of an origin is sent to `baseUrl`. A token is bound
 * to its origin (scheme, host, port): any path on that origin may receive it. A path chosen by a
 * workspace's settings (`scope` folder or workspace) other than the base URL the token was entered
 * with is asked about once per folder (`confirmed`, kept in the folder's state by VS Code, not in
 * the repository). The user's own settings are never asked about.
 */
export function needsPathConfirmation(baseUrl: string, scope: SettingScope, enteredWith: unknown, confirmed: readonly unknown[]): boolean {
  if (scope !== 'folder' && scope !== 'workspace') return false;
  const key = baseUrlKey(baseUrl);
  if (key === undefined) return false;
  if (typeof enteredWith === 'string' && baseUrlKey(enteredWith) === key) return false;
  return !confirmed.includes(key);
}
