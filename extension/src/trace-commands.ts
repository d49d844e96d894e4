/**
 * The commands that read a trace: Explain Trace (the report, one page at a time, in the explain
 * panel), Suggest Policy (a policy from a trace, shown beside the open one, with what it left out)
 * and Use Trace (the trace that trace-aware editing reads, in the workspace settings).
 */
import * as vscode from 'vscode';
import { Suggester, describeAccess, explain, parsePolicyDocument, streamTrace, validateDocument, type Policy, type PolicyDocument } from '@netpolicy/core';
import { clipped } from '@netpolicy/core/internal';
import { ExplainPanel } from './explain-panel';
import { ReportBuilder, type ReportModel } from './report';
import { POLICY_LANGUAGES } from './languages';
import { log, outputChannel } from './output';
import { type Platform } from './files';
import { labelText, showError, showInfo, showWarning, withProgress } from './notify';
import { pickPolicy, pickTrace, relative, rememberTrace, sbomBeside, traceInput } from './command-inputs';

/** The parsed policy, or undefined (with a message) when its errors must be fixed first. */
function usablePolicy(document: vscode.TextDocument): PolicyDocument | undefined {
  const doc = parsePolicyDocument(document.getText(), { fileName: document.uri.path });
  const errors = doc.syntaxFailed ? 1 : validateDocument(doc).filter((d) => d.severity === 'error').length;
  if (errors > 0) {
    void showError(`netpolicy: ${relative(document.uri)} has ${doc.syntaxFailed ? 'syntax errors' : `${errors} error${errors === 1 ? '' : 's'}`}; fix them (see Problems) before explaining a trace.`);
    return undefined;
  }
  return doc;
}

class CancelledError extends Error {}

export async function explainTraceCommand(context: vscode.ExtensionContext, platform: Platform, traceArg?: unknown, policyArg?: unknown): Promise<ExplainPanel | undefined> {
  const policy = policyArg instanceof vscode.Uri ? await vscode.workspace.openTextDocument(policyArg) : await pickPolicy();
  if (!policy) return undefined;
  // The policy's errors first: no trace is asked for that could not be explained.
  const doc = usablePolicy(policy);
  if (!doc) return undefined;
  const traceUri = await pickTrace(context, traceArg, `netpolicy: explain a trace against ${relative(policy.uri)}`);
  if (!traceUri) return undefined;
  const sbom = await sbomBeside(traceUri, platform);
  const names = { policy: relative(policy.uri), trace: relative(traceUri), sbom: sbom ? relative(sbom.uri) : undefined };
  /** One page of the report: the trace streamed through explain, only that page's denials kept. */
  const explainPage = (page: number) => withProgress(`netpolicy: explaining ${names.trace}`, true, async (_progress, token): Promise<ReportModel | undefined> => {
    try {
      const builder = new ReportBuilder(doc, names, page, undefined, sbom?.index);
      const input = await traceInput(traceUri, platform);
      if (token.isCancellationRequested) return undefined;
      const report = await explain(doc.value as Policy, input, {
        only: 'denied',
        keep: false,
        onResult: (r) => {
          if (token.isCancellationRequested) throw new CancelledError();
          builder.add(r);
        },
      });
      return builder.finish(report);
    } catch (e) {
      if (e instanceof CancelledError) return undefined;
      void showError(`netpolicy: ${names.trace} could not be explained: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  });
  const model = await explainPage(0);
  if (!model) return undefined;
  await rememberTrace(context, traceUri);
  log(`explained ${names.trace} against ${names.policy}: ${model.summary.observations} observations, ${model.summary.denied} denied, ${model.summary.disagreements} disagreements`);
  return ExplainPanel.show(context, policy.uri, model, explainPage);
}

export async function suggestPolicyCommand(context: vscode.ExtensionContext, platform: Platform, traceArg?: unknown, includeDenied = false): Promise<vscode.Uri | undefined> {
  const traceUri = await pickTrace(context, traceArg, 'netpolicy: suggest a policy from a trace');
  if (!traceUri) return undefined;
  const name = relative(traceUri);
  return withProgress(`netpolicy: suggesting a policy from ${name}`, true, async (_p, token) => {
    try {
      const suggester = new Suggester({ includeDenied });
      suggester.beginTrace();
      await streamTrace(await traceInput(traceUri, platform), (o) => {
        if (token.isCancellationRequested) throw new CancelledError();
        suggester.add(o);
      });
      const suggested = `${JSON.stringify(suggester.finish(), null, 2)}\n`;
      const right = await vscode.workspace.openTextDocument({ language: 'netpolicy', content: suggested });
      const current = vscode.window.activeTextEditor?.document;
      if (current && POLICY_LANGUAGES.includes(current.languageId)) {
        await vscode.commands.executeCommand('vscode.diff', current.uri, right.uri, labelText(`${relative(current.uri)} ↔ suggested from ${name}${includeDenied ? ' (denied accesses included)' : ''}`), { viewColumn: vscode.ViewColumn.Beside });
      } else {
        await vscode.window.showTextDocument(right, vscode.ViewColumn.Beside);
      }
      reportLeftOut(context, suggester, traceUri);
      return right.uri;
    } catch (e) {
      if (e instanceof CancelledError) return undefined;
      void showError(`netpolicy: no policy suggested from ${name}: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  });
}

/** At most this many "left out" lines in the output per suggestion. */
const MAX_LOGGED_LEFT_OUT = 200;

/** Says what the suggestion left out (the CLI says it on stderr), offering to include denied accesses. */
function reportLeftOut(context: vscode.ExtensionContext, suggester: Suggester, traceUri: vscode.Uri): void {
  const left = suggester.leftOut();
  if (left.length === 0) return;
  const denied = left.filter((l) => l.reason === 'denied');
  const count = (ls: typeof left) => ls.reduce((n, l) => n + l.count, 0);
  const sample = (ls: typeof left) => ls.slice(0, 3).map((l) => clipped(describeAccess(l.access), 120)).join('; ') + (ls.length > 3 ? `; and ${ls.length - 3} more` : '');
  // The log is bounded too: a trace may leave out 100,000 destinations, each URL up to megabytes (log() cuts each line).
  for (const l of left.slice(0, MAX_LOGGED_LEFT_OUT)) log(`suggest left out (${l.reason}): ${describeAccess(l.access)}${l.count > 1 ? ` ×${l.count}` : ''}`);
  if (left.length > MAX_LOGGED_LEFT_OUT) log(`suggest left out ${left.length - MAX_LOGGED_LEFT_OUT} more destinations`);
  const others = left.filter((l) => l.reason !== 'denied');
  if (others.length) {
    void showInfo(`netpolicy: the suggestion leaves out ${count(others)} access${count(others) === 1 ? '' : 'es'} it cannot allow as recorded (plain http to a software source: allowed in its https form; or a host name no rule can match): ${sample(others)}.`, 'Show Output').then((a) => { if (a) outputChannel().show(true); });
  }
  if (denied.length) {
    const include = 'Include Denied Accesses';
    void showWarning(`netpolicy: the suggestion leaves out ${count(denied)} access${count(denied) === 1 ? '' : 'es'} the trace recorded as denied (${denied.length} destination${denied.length === 1 ? '' : 's'}): ${sample(denied)}. The suggested policy does not allow them.`, include, 'Show Output').then((a) => {
      if (a === include) void vscode.commands.executeCommand('netpolicy.suggestPolicy', traceUri, { includeDenied: true });
      else if (a) outputChannel().show(true);
    });
  }
}

export async function useTraceCommand(context: vscode.ExtensionContext, traceArg?: unknown): Promise<void> {
  const traceUri = await pickTrace(context, traceArg, 'netpolicy: trace for trace-aware editing in this workspace');
  if (!traceUri) return;
  const folder = vscode.workspace.getWorkspaceFolder(traceUri);
  const path = folder ? vscode.workspace.asRelativePath(traceUri, false) : traceUri.fsPath;
  await vscode.workspace.getConfiguration('netpolicy').update('traces', [path], vscode.ConfigurationTarget.Workspace);
  await rememberTrace(context, traceUri);
  void showInfo(`netpolicy: policies in this workspace are now edited against ${path} (setting netpolicy.traces).`);
}
