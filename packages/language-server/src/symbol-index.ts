/**
 * The workspace symbol index (the language service's `WorkspaceSymbolIndex`): every policy file's
 * rules, so that a `workspace/symbol` query reads and parses no file. Files on disk are indexed as
 * the workspace check reads them (`checked`: the files it follows, within its bounds and trust rules,
 * confined to the workspace folder, trusted or not) and dropped when it drops them (`forgotten`);
 * open documents from their buffer, indexed again at a query when their version or the settings (the
 * catalog in force) changed since. Without the workspace check (the browser, or
 * `workspaceDiagnostics.maxFiles` 0) the open documents are all there is.
 *
 * The check's files are indexed once it has been quiet for IDLE_MS, in slices, from their text (kept
 * meanwhile as bytes). A query that comes before indexes what is left first, in its own slices
 * (`steps`).
 */
import { parsePolicyDocument, type PolicyDocument } from '@netpolicy/core';
import { WorkspaceSymbolIndex, type WorkspaceSymbolFile } from '@netpolicy/language-service';
import type { Documents } from './documents';
import { relativePath, type ServerHost } from './host';
import type { Session } from './session';
import { SLICE_MS } from './slices';
import type { Workspace } from './workspace';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** How long the workspace check must have been quiet before the files it read are indexed (on a busy machine a shorter wait let indexing start in the middle of the check, and slowed it). */
const IDLE_MS = 1000;

export class SymbolIndex {
  private readonly index = new WorkspaceSymbolIndex();
  /**
   * Files the check read and that are not indexed yet, by URI (the newest read of each): their text
   * as UTF-8 bytes, outside the JavaScript heap (held as strings, or as their parse, they made the
   * collector work during the check: the check took 15% more CPU).
   */
  private readonly pending = new Map<string, Uint8Array>();
  /** Open documents indexed from their buffers: the version and settings generation indexed. */
  private readonly open = new Map<string, { version: number; generation: number }>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: ServerHost, private readonly session: Session, private readonly workspace: Workspace, private readonly documents: Documents) {}

  /** The workspace check read and parsed a file (not open in the editor): indexed once the check is quiet. */
  checked(uri: string, doc: PolicyDocument): void {
    this.pending.set(uri, encoder.encode(doc.text));
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.indexInBackground();
    }, IDLE_MS);
  }

  /** The workspace check no longer follows a file (deleted, unreadable, not a policy file, past the bound). */
  forgotten(uri: string): void {
    this.pending.delete(uri);
    if (!this.open.has(uri)) this.index.delete(uri);
  }

  /** The index after what the check read meanwhile is indexed (a file a step), and the open documents as they are now. */
  *steps(): Generator<void, WorkspaceSymbolIndex> {
    this.dropClosed();
    yield* this.indexPending();
    this.indexOpen();
    return this.index;
  }

  /** Documents closed since: out until the check reads the file again (if it follows it; it reads it on close). */
  private dropClosed(): void {
    for (const uri of this.open.keys()) {
      if (this.documents.get(uri) && this.workspace.isPolicyUri(uri)) continue;
      this.open.delete(uri);
      this.index.delete(uri);
    }
  }

  /** Indexes the files read and not indexed yet, a file a step (a query and the background take from the one list). */
  private *indexPending(): Generator<void, void> {
    for (const [uri, bytes] of this.pending) {
      this.pending.delete(uri);
      // An open document is the editor's: its buffer is indexed, not the file.
      if (this.documents.get(uri)) continue;
      this.session.guard('workspace symbols', undefined, () => {
        const path = this.host.uriToPath(uri);
        this.index.set(uri, parsePolicyDocument(decoder.decode(bytes), { fileName: path ?? uri }), this.fileOf(uri, path));
      });
      yield;
    }
  }

  private indexOpen(): void {
    const { generation } = this.workspace;
    for (const td of this.documents.all()) {
      if (!this.workspace.isPolicyUri(td.uri)) continue;
      const seen = this.open.get(td.uri);
      if (seen && seen.version === td.version && seen.generation === generation) continue;
      const doc = this.documents.parsed(td.uri);
      if (!doc) continue;
      this.session.guard('workspace symbols', undefined, () => this.index.set(td.uri, doc, this.fileOf(td.uri, this.host.uriToPath(td.uri))));
      this.open.set(td.uri, { version: td.version, generation });
    }
  }

  private async indexInBackground(): Promise<void> {
    const steps = this.indexPending();
    let sliceStart = Date.now();
    while (!this.session.shutDown && !steps.next().done) {
      if (Date.now() - sliceStart < SLICE_MS) continue;
      await new Promise((resolve) => setTimeout(resolve, 0));
      sliceStart = Date.now();
    }
  }

  /** The container (the path relative to its workspace folder; the folder's name first when there are several) and the catalog in force. */
  private fileOf(uri: string, path: string | undefined): WorkspaceSymbolFile {
    const folder = this.workspace.folderOf(uri);
    const { roots } = this.workspace;
    const relative = path === undefined || !roots.includes(folder.root) ? undefined : relativePath(folder.root, path);
    const container = relative === undefined ? path ?? uri : roots.length > 1 ? `${folder.root.slice(folder.root.lastIndexOf('/') + 1)}/${relative}` : relative;
    return { container, catalog: folder.service.catalog };
  }
}
