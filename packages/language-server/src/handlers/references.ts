/**
 * `textDocument/references` (docs/editor.md, "References"):
 * - from a rule of a policy (anywhere in a source or connection, or on `default`): the tests that
 *   name it in the test files bound to the policy (`"rule": "/sources/0"`), then, in a trusted
 *   workspace with traces evaluated, the observations it decided, each the observation's own
 *   lines in its trace file (the first MAX_TRACE_REFERENCES);
 * - from a preset (in a policy's `presets`, or its name in the folder's catalog file): the
 *   policies of the workspace that enable it (each folder whose catalog means the same preset by
 *   that name; open ones from their buffers, others from disk, confined to their folder, as
 *   rename finds them) and the tests that name it (`preset:NAME`); from a policy, the
 *   observations it decided there too.
 * With `includeDeclaration`: the rule itself, or the preset's entry in the catalog file.
 */
import { bindPolicyTests, isPolicyTestFile, parsePolicyDocument, type PolicyDocument } from '@netpolicy/core';
import {
  catalogEntryOf, catalogNameAt, presetOccurrences, referenceTargetAt, ruleObservations, ruleRanges, testRuleRanges, type ReferenceTarget,
} from '@netpolicy/language-service';
import { LSPErrorCodes, ResponseError, type CancellationToken, type Connection, type Location, type ReferenceParams } from 'vscode-languageserver';
import { catalogFileOf } from '../catalog-file';
import { joinPath } from '../host';
import { folderFilesNaming } from '../preset-files';
import type { TraceEvaluator } from '../trace-evaluation';
import { MAX_WORKSPACE_FILE_BYTES } from '../workspace-check';
import type { Folder } from '../workspace';
import type { Parts } from './parts';

const dirOf = (path: string): string => path.slice(0, Math.max(path.lastIndexOf('/'), 0)) || '/';

export function register(connection: Connection, parts: Parts & { traces: TraceEvaluator }): void {
  const { host, session, workspace, documents, requests, traces } = parts;
  const cancelled = (token: CancellationToken) => {
    if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'references: cancelled');
  };

  /** The policies and test files of the workspace that name preset `name` as `folder`'s catalog means it. */
  async function presetUses(folder: Folder, name: string, token: CancellationToken): Promise<Location[]> {
    const meaning = JSON.stringify(folder.service.catalog.byName.get(name) ?? null);
    const out: Location[] = [];
    for (const f of workspace.folders.length > 0 ? workspace.folders : [folder]) {
      if (JSON.stringify(f.service.catalog.byName.get(name) ?? null) !== meaning) continue;
      for (const file of await folderFilesNaming(parts, f, name, token, 'references')) {
        const ranges = file.kind === 'policy' ? presetOccurrences(file.doc, name) : file.kind === 'tests' ? testRuleRanges(file.doc, `preset:${name}`) : [];
        for (const range of ranges) out.push({ uri: file.uri, range });
      }
    }
    return out;
  }

  /** The policy a test file binds to (a path), as `netpolicy test` binds it; undefined when it binds to none. */
  async function boundPolicy(testPath: string, value: unknown): Promise<string | undefined> {
    const dir = dirOf(testPath);
    const member = (value as { policy?: unknown } | null)?.policy;
    let names: string[] = [];
    if (typeof member !== 'string' && host.listFolder) names = (await host.listFolder(dir).catch(() => [])).filter((e) => e.kind === 'file' || e.kind === 'link').map((e) => e.name);
    const binding = bindPolicyTests(value, names);
    return binding.kind === 'member' ? joinPath(dir, binding.path) : binding.kind === 'folder' ? joinPath(dir, binding.name) : undefined;
  }

  /** The tests naming `rule` in the test files bound to the policy at `policyPath`: open ones (any folder), and those beside it on disk. */
  async function testsOf(policyPath: string, rule: string, token: CancellationToken): Promise<Location[]> {
    const out: Location[] = [];
    const seen = new Set<string>();
    const add = async (uri: string, path: string, doc: PolicyDocument, bound: string | undefined) => {
      seen.add(path);
      if (doc.syntaxFailed && doc.value === undefined) return;
      if ((bound ?? (await boundPolicy(path, doc.value))) !== policyPath) return;
      for (const range of testRuleRanges(doc, rule)) out.push({ uri, range });
    };
    for (const td of documents.all()) {
      const path = host.uriToPath(td.uri);
      if (path === undefined || !isPolicyTestFile(path)) continue;
      const run = documents.tests.current(td.uri, td.version);
      await add(td.uri, path, run?.doc ?? parsePolicyDocument(td.getText(), { fileName: path }), run?.policyPath);
    }
    const dir = dirOf(policyPath);
    const root = workspace.folderOf(host.pathToUri(policyPath)).root;
    if (!host.listFolder || !host.readFile) return out;
    for (const entry of await host.listFolder(dir).catch(() => [])) {
      const path = `${dir}/${entry.name}`;
      if (entry.kind !== 'file' || !isPolicyTestFile(entry.name) || seen.has(path)) continue;
      cancelled(token);
      let text: string;
      try {
        text = await host.readFile(path, MAX_WORKSPACE_FILE_BYTES, session.confined(root));
      } catch {
        continue;
      }
      await add(host.pathToUri(path), path, parsePolicyDocument(text, { fileName: path }), undefined);
    }
    return out;
  }

  /** The trace observations `rule` decided (trusted workspace, traces evaluated), each where it is in its trace file. */
  async function observationsOf(uri: string, rule: string, token: CancellationToken): Promise<Location[]> {
    const usage = session.trusted ? documents.usage(uri) : undefined;
    if (!usage) return [];
    const { observations } = ruleObservations(usage, rule);
    const out: Location[] = [];
    const stamps = new Map(usage.files.map((f) => [f.path, f.stamp]));
    let file: string | undefined;
    let fileUri = '';
    let places: Awaited<ReturnType<TraceEvaluator['observationPlaces']>>;
    for (const o of observations) {
      if (o.trace !== file) {
        cancelled(token);
        file = o.trace;
        fileUri = host.pathToUri(file);
        places = await traces.observationPlaces(file, stamps.get(file), undefined);
      }
      const range = places?.range(o.index);
      if (range) out.push({ uri: fileUri, range });
    }
    return out;
  }

  connection.onReferences(async (p: ReferenceParams, token): Promise<Location[] | null> => {
    const uri = p.textDocument?.uri;
    const folder = typeof uri === 'string' ? workspace.folderOf(uri) : undefined;
    // From the folder's catalog file: the name of one of its entries.
    if (folder?.catalogPath !== undefined && (uri === host.pathToUri(folder.catalogPath) || host.uriToPath(uri) === folder.catalogPath)) {
      requests.checked('textDocument/references', p);
      const td = documents.get(uri);
      const name = td && session.guard('references', undefined, () => catalogNameAt(parsePolicyDocument(td.getText(), { jsonc: true }), p.position));
      if (!name) return null;
      const out = p.context?.includeDeclaration ? [{ uri, range: name.range }] : [];
      return unique([...out, ...(await presetUses(folder, name.value, token))]);
    }
    const target: ReferenceTarget | undefined = requests.withDoc('references', 'textDocument/references', p, token, undefined, (doc) => referenceTargetAt(doc, p.position));
    const doc = target && documents.parsed(uri);
    if (!target || !doc || !folder) return null;
    const out: Location[] = [];
    if (p.context?.includeDeclaration) {
      if (target.kind === 'rule') out.push(...ruleRanges(doc, target.rule).map((range) => ({ uri, range })));
      else {
        const catalog = await catalogFileOf(folder, parts);
        const entry = catalog && session.guard('references', undefined, () => catalogEntryOf(catalog.doc, target.name));
        if (catalog && entry) out.push({ uri: catalog.uri, range: entry.name });
      }
    }
    if (target.kind === 'preset') out.push(...(await presetUses(folder, target.name, token)));
    else {
      const path = host.uriToPath(uri);
      if (path !== undefined) out.push(...(await testsOf(path, target.rule, token)));
    }
    out.push(...(await observationsOf(uri, target.rule, token)));
    return unique(out);
  });
}

/** Each location once, in the order first given. */
function unique(list: Location[]): Location[] {
  const seen = new Set<string>();
  return list.filter((l) => {
    const key = `${l.uri}\u0000${l.range.start.line}:${l.range.start.character}:${l.range.end.line}:${l.range.end.character}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
