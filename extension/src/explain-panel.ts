/**
 * The explain report's webview: one panel per policy, rendered by report.ts. Reveal selects the
 * rule in the policy as it is now (ranges are looked up at click time, the policy may have
 * changed); a fix is computed on the current text with core's denialFixEdits and applied as a
 * WorkspaceEdit (undoable, the document stays unsaved).
 */
import * as vscode from 'vscode';
import { parsePolicyDocument, type Policy } from '@netpolicy/core';
import { labelText, showInfo, showWarning } from './notify';
import { allowedNow, applyDenialFix, markAllowed, renderReportHtml, ruleRange, type ReportDenial, type ReportModel } from './report';

/** Makes the model of another page of the same report (the trace is explained again, streamed). */
export type PageLoader = (page: number) => PromiseLike<ReportModel | undefined>;

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
  private loader: PageLoader | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  private constructor(readonly panel: vscode.WebviewPanel, readonly policyUri: vscode.Uri) {
    panel.onDidDispose(() => {
      ExplainPanel.panels.delete(policyUri.toString());
      if (ExplainPanel.current === this) ExplainPanel.current = undefined;
      for (const d of this.disposables) d.dispose();
    }, undefined, this.disposables);
    panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m), undefined, this.disposables);
  }

  static show(context: vscode.ExtensionContext, policyUri: vscode.Uri, model: ReportModel, loader?: PageLoader): ExplainPanel {
    const key = policyUri.toString();
    let p = ExplainPanel.panels.get(key);
    if (!p) {
      const panel = vscode.window.createWebviewPanel('netpolicy.explain', labelText(`Explain: ${model.trace}`), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
        enableScripts: true,
        localResourceRoots: [],
        retainContextWhenHidden: false,
      });
      p = new ExplainPanel(panel, policyUri);
      ExplainPanel.panels.set(key, p);
      context.subscriptions.push(panel);
    }
    p.loader = loader;
    p.update(model);
    p.panel.reveal(undefined, false);
    ExplainPanel.current = p;
    return p;
  }

  update(model: ReportModel): void {
    this.model = model;
    this.panel.title = labelText(`Explain: ${model.trace}`);
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
      void showWarning(`netpolicy: ${rule} is no longer in the policy.`);
      return false;
    }
    const selection = new vscode.Range(document.positionAt(range.offset), document.positionAt(range.offset + range.length));
    const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === document.uri.toString());
    const editor = await vscode.window.showTextDocument(document, { viewColumn: shown?.viewColumn ?? vscode.ViewColumn.One, selection, preserveFocus: false });
    editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return true;
  }

  private denial(id: number): ReportDenial | undefined {
    for (const g of this.model.groups) for (const d of g.denials) if (d.id === id) return d;
    return undefined;
  }

  /**
   * Applies a denial's fix to the policy as it is now, unless the policy already allows the
   * access (then nothing is written). Afterwards every denial of the page that the new policy
   * allows is marked fixed and its button disabled: the same rule is never added twice.
   */
  async applyFix(id: number, opts: { quiet?: boolean } = {}): Promise<boolean> {
    const denial = this.denial(id);
    if (!denial?.fix || denial.fixed) return false;
    const document = await this.policyDocument();
    const doc = parsePolicyDocument(document.getText(), { fileName: document.uri.path });
    const usable = !doc.syntaxFailed && doc.value !== null && typeof doc.value === 'object';
    const already = usable ? allowedNow(doc.value as Policy, denial) : undefined;
    if (already) {
      denial.fixed = already;
      this.rerender();
      if (!opts.quiet) void showInfo(`netpolicy: #${denial.sequence} is already allowed by ${already}; nothing was written.`);
      return false;
    }
    const applied = applyDenialFix(doc, denial.fix);
    if (!applied) {
      if (!opts.quiet) void showWarning(`netpolicy: the fix for #${denial.sequence} no longer applies to the policy.`);
      return false;
    }
    const edit = new vscode.WorkspaceEdit();
    for (const e of applied.edits) {
      edit.replace(document.uri, new vscode.Range(document.positionAt(e.offset), document.positionAt(e.offset + e.length)), e.newText);
    }
    const ok = await vscode.workspace.applyEdit(edit);
    if (!ok) return false;
    const after = parsePolicyDocument(document.getText(), { fileName: document.uri.path });
    const marked = !after.syntaxFailed && after.value !== null && typeof after.value === 'object' ? markAllowed(this.model, after.value as Policy) : 0;
    if (!denial.fixed) denial.fixed = denial.fix.pointer;
    this.rerender();
    if (!opts.quiet) {
      const text = denial.fix.text.length > 80 ? `${denial.fix.text.slice(0, 77)}...` : denial.fix.text;
      void showInfo(`netpolicy: added ${text} to ${denial.fix.pointer}${marked > 1 ? `; ${marked} denials on this page are now allowed` : ''}.`);
    }
    return true;
  }

  /** Applies every fix a host's denials need, one at a time, skipping those an earlier one already allows. */
  async applyHostFixes(groupIndex: number): Promise<number> {
    const group = this.model.groups[groupIndex];
    if (!group) return 0;
    let applied = 0;
    for (const d of group.denials) {
      if (d.fix && !d.fixed && (await this.applyFix(d.id, { quiet: true }))) applied++;
    }
    const left = group.denials.filter((d) => !d.fixed).length;
    void showInfo(`netpolicy: ${applied} fix${applied === 1 ? '' : 'es'} added for ${group.host}${left ? `; ${left} denial${left === 1 ? '' : 's'} of it on this page still denied` : ''}.`);
    return applied;
  }

  /** Shows another page of the report. */
  async showPage(page: number): Promise<boolean> {
    if (!this.loader || page < 0) return false;
    const model = await this.loader(page);
    if (!model) return false;
    this.update(model);
    return true;
  }

  private rerender(): void {
    this.update(this.model);
  }

  private async onMessage(message: unknown): Promise<void> {
    if (!message || typeof message !== 'object') return;
    const { action, id } = message as { action?: unknown; id?: unknown };
    if (typeof id !== 'number') return;
    if (action === 'reveal') {
      const d = this.denial(id);
      if (d?.nearest) await this.reveal(d.nearest.rule);
    } else if (action === 'reveal-model') {
      const d = this.model.disagreements.find((x) => x.id === id);
      if (d?.rule) await this.reveal(d.rule.pointer);
    } else if (action === 'fix') {
      await this.applyFix(id);
    } else if (action === 'fix-host') {
      await this.applyHostFixes(id);
    } else if (action === 'page') {
      await this.showPage(id);
    }
  }
}
