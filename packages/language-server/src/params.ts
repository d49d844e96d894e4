/**
 * The shape of the params of every method the server handles (LSP 3.17 and netpolicy's own), as
 * checks that name the first member that is wrong: `checkParams(method, params)` is undefined
 * when the params will do, else a message such as `params.position.line must be a non-negative
 * integer`. The message gate (message-gate.ts) answers a request whose params fail with
 * InvalidParams (-32602) and that message, and drops such a notification with a log line; the
 * handlers in server.ts check again (a connection without the gate: tests, other transports).
 * Optional members may be absent or null; members the server does not read are not checked.
 */
import { DenialsRequestMethod, PresetDocumentRequestMethod, WorkspaceTrustNotificationMethod } from './protocol';

type Check = (value: unknown, at: string) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const any: Check = () => undefined;
const str: Check = (v, at) => (typeof v === 'string' ? undefined : `${at} must be a string`);
const bool: Check = (v, at) => (typeof v === 'boolean' ? undefined : `${at} must be true or false`);
const uinteger: Check = (v, at) => (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 2147483647 ? undefined : `${at} must be a non-negative integer`);
const integer: Check = (v, at) => (Number.isInteger(v) && Math.abs(v as number) <= 2147483647 ? undefined : `${at} must be an integer`);
const oneOf = (...values: string[]): Check => (v, at) => (values.includes(v as string) ? undefined : `${at} must be one of ${values.map((x) => JSON.stringify(x)).join(', ')}`);
const either = (a: Check, b: Check, what: string): Check => (v, at) => (a(v, at) === undefined || b(v, at) === undefined ? undefined : `${at} must be ${what}`);

function array(item: Check): Check {
  return (v, at) => {
    if (!Array.isArray(v)) return `${at} must be an array`;
    for (let i = 0; i < v.length; i++) {
      const problem = item(v[i], `${at}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  };
}

function object(required: Record<string, Check>, optional: Record<string, Check> = {}): Check {
  return (v, at) => {
    if (!isObject(v)) return `${at} must be an object`;
    for (const [key, check] of Object.entries(required)) {
      if (!Object.hasOwn(v, key) || v[key] === undefined) return `${at}.${key} is missing`;
      const problem = check(v[key], `${at}.${key}`);
      if (problem) return problem;
    }
    for (const [key, check] of Object.entries(optional)) {
      if (!Object.hasOwn(v, key) || v[key] === undefined || v[key] === null) continue;
      const problem = check(v[key], `${at}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  };
}

const textDocument = object({ uri: str });
const position = object({ line: uinteger, character: uinteger });
const range = object({ start: position, end: position });
const workspaceFolder = object({ uri: str, name: str });
const onDocument = object({ textDocument });
const atPosition = object({ textDocument, position });
const formattingOptions = object({ tabSize: uinteger, insertSpaces: bool }, { trimTrailingWhitespace: bool, insertFinalNewline: bool, trimFinalNewlines: bool });
/** No params at all (`shutdown`, `exit`): absent or null. */
const none: Check = (v, at) => (v === undefined || v === null ? undefined : `${at} must be absent (this method takes no params)`);
const absentOrObject: Check = (v, at) => (v === undefined || v === null || isObject(v) ? undefined : `${at} must be an object`);

/** Every method the server reads the params of, with their shape. */
export const PARAMS: Readonly<Record<string, Check>> = {
  initialize: object({ capabilities: object({}) }, {
    processId: integer, rootUri: str, rootPath: str, workspaceFolders: array(workspaceFolder), initializationOptions: any,
    trace: oneOf('off', 'messages', 'verbose'), clientInfo: object({ name: str }, { version: str }), locale: str,
  }),
  initialized: absentOrObject,
  shutdown: none,
  exit: any,
  '$/cancelRequest': object({ id: either(integer, str, 'an integer or a string') }),
  '$/setTrace': object({ value: oneOf('off', 'messages', 'verbose') }),
  'textDocument/didOpen': object({ textDocument: object({ uri: str, languageId: str, version: integer, text: str }) }),
  'textDocument/didChange': object({
    textDocument: object({ uri: str, version: integer }),
    contentChanges: array(object({ text: str }, { range, rangeLength: uinteger })),
  }),
  'textDocument/didClose': onDocument,
  'textDocument/willSave': object({ textDocument, reason: uinteger }),
  'textDocument/willSaveWaitUntil': object({ textDocument, reason: uinteger }),
  'textDocument/didSave': object({ textDocument }, { text: str }),
  'textDocument/completion': object({ textDocument, position }, { context: object({ triggerKind: uinteger }, { triggerCharacter: str }) }),
  'textDocument/hover': atPosition,
  'textDocument/codeAction': object({ textDocument, range }, { context: object({ diagnostics: array(object({ range, message: str })) }, { only: array(str), triggerKind: uinteger }) }),
  'textDocument/documentSymbol': onDocument,
  'textDocument/foldingRange': onDocument,
  'textDocument/selectionRange': object({ textDocument, positions: array(position) }),
  'textDocument/formatting': object({ textDocument, options: formattingOptions }),
  'textDocument/rangeFormatting': object({ textDocument, range, options: formattingOptions }),
  'textDocument/documentLink': onDocument,
  'textDocument/codeLens': onDocument,
  'workspace/executeCommand': object({ command: str }, { arguments: array(any) }),
  'workspace/didChangeConfiguration': object({}, { settings: any }),
  'workspace/didChangeWatchedFiles': object({ changes: array(object({ uri: str, type: oneOfNumbers(1, 2, 3) })) }),
  'workspace/didChangeWorkspaceFolders': object({ event: object({ added: array(workspaceFolder), removed: array(workspaceFolder) }) }),
  [DenialsRequestMethod]: object({ uri: str }),
  'textDocument/definition': atPosition,
  [PresetDocumentRequestMethod]: object({ uri: str }),
  'textDocument/documentHighlight': atPosition,
  'textDocument/prepareRename': atPosition,
  'textDocument/rename': object({ textDocument, position, newName: str }),
  'textDocument/inlayHint': object({ textDocument, range }),
  'textDocument/diagnostic': object({ textDocument }, { previousResultId: str }),
  'workspace/diagnostic': object({ previousResultIds: array(object({ uri: str, value: str })) }),
  'workspace/symbol': object({ query: str }),
  'textDocument/references': object({ textDocument, position }, { context: object({ includeDeclaration: bool }) }),
  [WorkspaceTrustNotificationMethod]: object({ trusted: bool }),
};

function oneOfNumbers(...values: number[]): Check {
  return (v, at) => (values.includes(v as number) ? undefined : `${at} must be one of ${values.join(', ')}`);
}

/** What is wrong with the params of `method` (undefined: nothing, or a method whose params are not read). */
export function checkParams(method: string, params: unknown): string | undefined {
  const check = Object.hasOwn(PARAMS, method) ? PARAMS[method] : undefined;
  return check?.(params, 'params');
}
