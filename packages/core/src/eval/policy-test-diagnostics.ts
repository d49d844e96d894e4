/**
 * A policy test file's problems with their places (the editor's diagnostics): syntax, then the
 * tests schema (schemas/policy-tests.schema.json) in words, each at the key (an unknown member)
 * or the value (everything else), with fix data where one value is the likely intent.
 * `checkPolicyTestFile` accepts exactly the files that have none of these errors.
 */
import type { ErrorObject } from 'ajv';
import { policyTestsValidator } from '../generated/validators-policy-tests';
import type { PolicyDocument } from '../validate/document';
import { Locator } from '../validate/locate';
import { escapeSegment, parsePointer, valueAt } from '../validate/pointer';
import { closeMatches, nearestFirst, quote } from '../validate/suggest-names';
import type { Diagnostic } from '../validate/types';

const ACCESSES = ['http', 'tls', 'tcp', 'ssh'];
const MEMBERS: Record<string, string[]> = {
  '': ['$schema', 'description', 'policy', 'tests'],
  test: ['name', 'expect', 'rule', ...ACCESSES],
  http: ['method', 'url', 'remoteIp'],
  tls: ['serverName', 'port', 'alpn', 'remoteIp', 'hostnames'],
  tcp: ['port', 'remoteIp', 'hostnames'],
  ssh: ['host', 'port', 'user', 'repositoryPath'],
};

/** What a pointer of a test file names: the file, a test, or an access of a test. */
function shapeOf(pointer: string): string {
  const parts = parsePointer(pointer);
  if (parts.length === 0) return '';
  if (parts.length === 2 && parts[0] === 'tests') return 'test';
  return parts.length === 3 && parts[0] === 'tests' ? parts[2] : '?';
}

type Finding = Omit<Diagnostic, 'severity' | 'offset' | 'length'> & { target: 'key' | 'value' };

function translate(e: ErrorObject, root: unknown): Finding | undefined {
  const pointer = e.instancePath;
  const at = pointer === '' ? 'the test file' : `\`${parsePointer(pointer).join('.')}\``;
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = String(e.params.additionalProperty);
      const shape = shapeOf(pointer);
      const allowed = (MEMBERS[shape] ?? []).filter((k) => k !== '$schema');
      const close = closeMatches(name, allowed);
      const present = (k: string) => Object.prototype.hasOwnProperty.call(valueAt(root, pointer) ?? {}, k);
      const free = close.filter((k) => !present(k));
      return {
        code: 'unknown-property', target: 'key', pointer: `${pointer}/${escapeSegment(name)}`,
        message: `${quote(name)} is not a member of ${shape === 'test' ? 'a test' : at}.${close.length > 0 ? ` Did you mean \`${close[0]}\`?` : ''} Allowed: ${nearestFirst(name, allowed).map((n) => `\`${n}\``).join(', ')}.`,
        ...(free.length > 0 ? { data: { kind: 'rename-key' as const, candidates: free } } : {}),
      };
    }
    case 'oneOf': {
      const test = valueAt(root, pointer) as Record<string, unknown>;
      const named = ACCESSES.filter((k) => Object.prototype.hasOwnProperty.call(test ?? {}, k));
      return named.length === 0
        ? { code: 'missing-property', target: 'value', pointer, message: 'a test names its access: one of `http`, `tls`, `tcp` or `ssh`' }
        : { code: 'invalid-value', target: 'value', pointer, message: `a test names exactly one access, this one names ${named.map((k) => `\`${k}\``).join(' and ')}` };
    }
    case 'required':
      // The access kinds' `required` are the oneOf's branches: said once, by the oneOf.
      if (String(e.schemaPath).includes('/oneOf/')) return undefined;
      return { code: 'missing-property', target: 'value', pointer, message: `${at} lacks \`${String(e.params.missingProperty)}\`` };
    case 'minProperties': case 'maxProperties':
      return undefined; // what the oneOf and the unknown members say
    case 'type':
      return { code: 'wrong-type', target: 'value', pointer, message: `${at} must be ${pointer === '/tests' ? 'an array of tests' : `${[e.params.type].flat().join(' or ')}`}` };
    case 'enum': {
      const allowed = (e.params.allowedValues as unknown[]).map(String);
      const got = valueAt(root, pointer);
      const close = typeof got === 'string' ? closeMatches(got, allowed) : [];
      return {
        code: 'invalid-value', target: 'value', pointer,
        message: `${quote(typeof got === 'string' ? got : JSON.stringify(got) ?? '')} is not allowed for ${at}.${close.length > 0 ? ` Did you mean \`${close[0]}\`?` : ''} Allowed: ${allowed.map((n) => `\`${n}\``).join(', ')}.`,
        ...(close.length > 0 ? { data: { kind: 'replace' as const, value: close[0], title: `Change to ${close[0]}` } } : {}),
      };
    }
    case 'minLength':
      return { code: 'invalid-value', target: 'value', pointer, message: `${at} must not be an empty string` };
    case 'pattern':
      return { code: 'invalid-value', target: 'value', pointer, message: `${at} must be a URL with its scheme, such as https://pypi.org/simple/` };
    case 'minimum': case 'maximum':
      return { code: 'invalid-value', target: 'value', pointer, message: `${at} must be a port from 1 to 65535` };
    default:
      return { code: 'invalid-value', target: 'value', pointer, message: `${at}: ${e.message ?? 'invalid'}` };
  }
}

/**
 * The syntax and schema errors of a parsed policy test file, in text order (none: `checkPolicyTestFile` accepts its value).
 * @public
 */
export function policyTestFileDiagnostics(doc: PolicyDocument): Diagnostic[] {
  const out: Diagnostic[] = [...doc.syntaxDiagnostics];
  if (doc.syntaxFailed) return out;
  if (!policyTestsValidator(doc.value)) {
    const locator = new Locator(doc);
    const seen = new Set<string>();
    for (const e of policyTestsValidator.errors ?? []) {
      const f = translate(e, doc.value);
      if (!f) continue;
      const key = `${f.code}\u0000${f.pointer}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const { target, ...finding } = f;
      out.push({ ...finding, severity: 'error', ...locator.range(f.pointer, target) });
    }
  }
  return out.sort((a, b) => a.offset - b.offset);
}
