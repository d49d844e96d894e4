/**
 * Open policy test files (`*.tests.json`): each one's policy (core's `bindPolicyTests`, as
 * `netpolicy test` without `--policy`), its tests run by core's `runPolicyTests` against that
 * policy (its open text if it is open, else the file on disk through the host's confined read),
 * and the last outcome per version, for diagnostics, lenses and quick fixes. Documents (documents.ts)
 * publish what `evaluate` returns; a change to a policy file re-evaluates the test files bound to
 * it or beside it (`policyChanged`).
 *
 * In a workspace that is not trusted, a `policy` member leading out of the workspace folder (`..`,
 * an absolute path, a link) is refused with a diagnostic, unread; the read never blocks (a FIFO is
 * refused by the host).
 */
import {
  bindPolicyTests, checkPolicyTestFile, isPolicyTestFile, parsePolicyDocument, runPolicyTests, unboundProblem, validate,
  type Policy, type PolicyDocument, type PolicyTestResult,
} from '@netpolicy/core';
import { policyTestDiagnostics, policyTestFileProblems } from '@netpolicy/language-service';
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { FileProblem, joinPath, relativePath, type ServerHost } from './host';
import type { Session } from './session';
import type { Workspace } from './workspace';

/** The server's command that evaluates a test file again (its lenses run it), its argument the file's URI. */
export const RUN_POLICY_TESTS_COMMAND = 'netpolicy.server.runPolicyTests';

/** The largest policy read from disk for a test file (as the workspace check). */
const MAX_POLICY_BYTES = 64 * 1024 * 1024;

/** The outcome of one version of a test file. */
export interface PolicyTestRun {
  version: number;
  doc: PolicyDocument;
  /** The results (absent: the file or its policy is not usable; `problem` says why when it is the policy). */
  results?: PolicyTestResult[];
  problem?: string;
  /** The bound policy's path (to re-evaluate when it changes). */
  policyPath?: string;
}

const folderOf = (path: string): string => path.slice(0, Math.max(path.lastIndexOf('/'), 0)) || '/';
const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

export class PolicyTestFiles {
  private readonly runs = new Map<string, PolicyTestRun>();

  constructor(
    private readonly host: ServerHost,
    private readonly session: Session,
    private readonly workspace: Workspace,
    private readonly openDocuments: () => TextDocument[],
  ) {}

  isTestUri(uri: string): boolean {
    const path = this.host.uriToPath(uri);
    return path !== undefined && isPolicyTestFile(path);
  }

  /** The outcome of the document's current version, if it was evaluated. */
  current(uri: string, version: number | undefined): PolicyTestRun | undefined {
    const run = this.runs.get(uri);
    return run && run.version === version ? run : undefined;
  }

  /** The open test files to evaluate again when the policy file `path` changed (bound to it, or in its folder: the binding may change). */
  boundTo(path: string): string[] {
    const out: string[] = [];
    for (const td of this.openDocuments()) {
      if (!this.isTestUri(td.uri)) continue;
      const run = this.runs.get(td.uri);
      const own = this.host.uriToPath(td.uri);
      if (run?.policyPath === path || (own !== undefined && folderOf(own) === folderOf(path))) out.push(td.uri);
    }
    return out;
  }

  forget(uri: string): void {
    this.runs.delete(uri);
  }

  /** Evaluates the document's current version; its diagnostics, or undefined when a newer version or a close came first. */
  async evaluate(td: TextDocument): Promise<LspDiagnostic[] | undefined> {
    const { uri, version } = td;
    const path = this.host.uriToPath(uri) ?? uri;
    const doc = parsePolicyDocument(td.getText(), { fileName: path });
    const run: PolicyTestRun = { version, doc };
    const valid = !doc.syntaxFailed && !policyTestFileProblems(doc).some((d) => d.severity === 'error');
    if (valid) {
      const found = await this.policyOf(path, uri, doc.value);
      if (this.openDocuments().find((d) => d.uri === uri)?.version !== version) return undefined;
      run.policyPath = found.path;
      if ('problem' in found) run.problem = found.problem;
      else run.results = runPolicyTests(found.policy, checkPolicyTestFile(doc.value), { catalog: this.workspace.folderOf(uri).service.catalog });
    }
    this.runs.set(uri, run);
    return policyTestDiagnostics(doc, uri, run);
  }

  /** The policy a test file binds to, read and validated, or why there is none to run against. */
  private async policyOf(path: string, uri: string, value: unknown): Promise<{ policy: Policy; path: string } | { problem: string; path?: string }> {
    const folder = folderOf(path);
    const root = this.workspace.folderOf(uri).root;
    const within = this.session.confined(root);
    let names: string[] = [];
    const member = (value as { policy?: unknown }).policy;
    if (typeof member !== 'string') {
      // The folder's files: from disk where there is one, else the open documents there.
      if (this.host.listFolder) {
        try {
          names = (await this.host.listFolder(folder)).filter((e) => e.kind === 'file' || e.kind === 'link').map((e) => e.name);
        } catch (err) {
          return { problem: `the folder of this test file cannot be listed to find its policy: ${err instanceof FileProblem ? err.problem : String(err)}` };
        }
      } else {
        names = this.openDocuments().map((d) => this.host.uriToPath(d.uri)).filter((p): p is string => p !== undefined && folderOf(p) === folder).map(nameOf);
      }
    }
    const binding = bindPolicyTests(value, names);
    // An editor that reads no files (a browser) knows only the open documents of the folder: say so, not "no policy file".
    if (binding.kind === 'none' && !this.host.listFolder) return { problem: 'no policy of this folder is open, and this editor reads no files: open the policy beside this test file (or name it with "policy": "FILE" and open it)' };
    if (binding.kind === 'ambiguous' || binding.kind === 'none') return { problem: `${unboundProblem(binding, 'this folder')}: add "policy": "FILE"` };
    const policyPath = joinPath(folder, binding.kind === 'member' ? binding.path : binding.name);
    const shown = binding.kind === 'member' ? binding.path : binding.name;
    if (within !== undefined && relativePath(within, policyPath) === undefined) {
      return { problem: `policy ${shown} not read: it is outside the workspace folder, and the workspace is not trusted`, path: policyPath };
    }
    const open = this.openDocuments().find((d) => this.host.uriToPath(d.uri) === policyPath);
    let text: string;
    if (open) text = open.getText();
    else if (!this.host.readFile) return { problem: `policy ${shown} is not open (this editor reads no files)`, path: policyPath };
    else {
      try {
        text = await this.host.readFile(policyPath, MAX_POLICY_BYTES, within);
      } catch (err) {
        return { problem: `policy ${shown} not read: ${err instanceof FileProblem ? err.problem : 'it cannot be read'}`, path: policyPath };
      }
    }
    // As `netpolicy test`: a policy that is not valid is not run (lint findings do not stop it).
    const result = validate(text, { fileName: policyPath, catalog: this.workspace.folderOf(uri).service.catalog, lint: false });
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0 || !result.valid) {
      const doc = parsePolicyDocument(text, { fileName: policyPath });
      const at = errors[0] ? doc.lineIndex.positionAt(errors[0].offset) : { line: 0, character: 0 };
      return { problem: `policy ${shown} is not valid (${nameOf(policyPath)}:${at.line + 1}:${at.character + 1}: ${errors[0]?.message ?? 'not a policy'}): no test was run`, path: policyPath };
    }
    return { policy: result.value as Policy, path: policyPath };
  }
}
