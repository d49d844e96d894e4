/**
 * The explain report's webview: one panel per policy, rendered by report.ts. Reveal selects the
 * rule in the policy as it is now (ranges are looked up at click time, the policy may have
 * changed); a fix is computed on the current text with core's denialFixEdits and applied as a
 * WorkspaceEdit (undoable, the document stays unsaved).
 */
import * as vscode from 'vscode';
import { parsePolicyDocument } from '@netpolicy/core';
import { applyDenialFix, renderReportHtml, ruleRange, type ReportModel } from './report';

function nonce(): string {
  const bytes = new Uint8Array(18);
  globalThis.crypto.getRandomValues(bytes);
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

export class ExplainPanel {
  private static readonly panels = new Map<string, ExplainPanel>();
  /** The last panel shown (for tests and the command's callers). */
  static current: ExplainPanel | undefined;

  private model!: ReportModel;
  private readonly disposables: vscode.Disposable[] = [];

  private constructor(readonly panel: vscode.WebviewPanel, readonly policyUri: vscode.Uri) {
    panel.onDidDispose(() => {
      ExplainPanel.panels.delete(policyUri.toString());
      if (ExplainPanel.current === this) ExplainPanel.current = undefined;
      for (const d of this.disposables) d.dispose();
    }, undefined, this.disposables);
    panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m), undefined, this.disposables);
  }

  static show(context: vscode.ExtensionContext, policyUri: vscode.Uri, model: ReportModel): ExplainPanel {
    const key = policyUri.toString();
    let p = ExplainPanel.panels.get(key);
    if (!p) {
      const panel = vscode.window.createWebviewPanel('netpolicy.explain', `Explain: ${model.trace}`, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
        enableScripts: true,
        localResourceRoots: [],
        retainContextWhenHidden: false,
      });
      p = new ExplainPanel(panel, policyUri);
      ExplainPanel.panels.set(key, p);
      context.subscriptions.push(panel);
    }
    p.update(model);
    p.panel.reveal(undefined, false);
    ExplainPanel.current = p;
    return p;
  }

  update(model: ReportModel): void {
    this.model = model;
    this.panel.title = `Explain: ${model.trace}`;
    this.panel.webview.html = renderReportHtml(model, { cspSource: this.panel.webview.cspSource, nonce: nonce() });
  }

  get report(): ReportModel {
    return this.model;
  }

  private async policyDocument(): Promise<vscode.TextDocument> {
    return vscode.workspace.openTextDocument(this.policyUri);
  }

  /** Selects a rule of the policy in an editor beside the report; false when it is no longer there. */
  async reveal(rule: string): Promise<boolean> {
    const document = await this.policyDocument();
    const range = ruleRange(parsePolicyDocument(document.getText(), { fileName: document.uri.path }), rule);
    if (!range) {
      void vscode.window.showWarningMessage(`netpolicy: ${rule} is no longer in the policy.`);
      return false;
    }
    const selection = new vscode.Range(document.positionAt(range.offset), document.positionAt(range.offset + range.length));
    const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === document.uri.toString());
    const editor = await vscode.window.showTextDocument(document, { viewColumn: shown?.viewColumn ?? vscode.ViewColumn.One, selection, preserveFocus: false });
    editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return true;
  }

  /** Applies a denial's fix to the policy as it is now. */
  async applyFix(id: number): Promise<boolean> {
    const denial = this.model.groups.flatMap((g) => g.denials).find((d) => d.id === id);
    if (!denial?.fix) return false;
    const document = await this.policyDocument();
    const doc = parsePolicyDocument(document.getText(), { fileName: document.uri.path });
    const applied = applyDenialFix(doc, denial.fix);
    if (!applied) {
      void vscode.window.showWarningMessage(`netpolicy: the fix for #${denial.sequence} no longer applies to the policy.`);
      return false;
    }
    const edit = new vscode.WorkspaceEdit();
    for (const e of applied.edits) {
      edit.replace(document.uri, new vscode.Range(document.positionAt(e.offset), document.positionAt(e.offset + e.length)), e.newText);
    }
    const ok = await vscode.workspace.applyEdit(edit);
    if (ok) void vscode.window.showInformationMessage(`netpolicy: added ${denial.fix.text.length > 80 ? `${denial.fix.text.slice(0, 77)}...` : denial.fix.text} to ${denial.fix.pointer}; run the explain again to see the remaining denials.`);
    return ok;
  }

  private async onMessage(message: unknown): Promise<void> {
    if (!message || typeof message !== 'object') return;
    const { action, id } = message as { action?: unknown; id?: unknown };
    if (typeof id !== 'number') return;
    if (action === 'reveal') {
      const d = this.model.groups.flatMap((g) => g.denials).find((x) => x.id === id);
      if (d?.nearest) await this.reveal(d.nearest.rule);
    } else if (action === 'reveal-model') {
      const d = this.model.disagreements.find((x) => x.id === id);
      if (d?.rule) await this.reveal(d.rule.pointer);
    } else if (action === 'fix') {
      await this.applyFix(id);
    }
  }
}
