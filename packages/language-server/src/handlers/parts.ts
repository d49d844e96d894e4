/** The state owners and helpers the handlers that span the whole server (lifecycle, configuration) receive. */
import type { DiagnosticsOut } from '../diagnostics-out';
import type { Documents } from '../documents';
import type { ServerHost } from '../host';
import type { Progress } from '../progress';
import type { Requests } from '../requests';
import type { Session } from '../session';
import type { WorkspaceCheck } from '../workspace-check';
import type { Workspace } from '../workspace';

export interface Parts {
  host: ServerHost;
  session: Session;
  workspace: Workspace;
  documents: Documents;
  requests: Requests;
  check: WorkspaceCheck;
  /** Where diagnostics go (published, or kept for pulls). */
  out: DiagnosticsOut;
  progress: Progress;
}
