/** `netpolicy/denials` (protocol.ts): every denial the traces got from the policy, with the nearest rule and the smallest fix. */
import { emptyUsage } from '@netpolicy/language-service';
import type { Connection } from 'vscode-languageserver';
import type { Documents } from '../documents';
import { DenialsRequestMethod, type DenialsParams, type DenialsResult } from '../protocol';
import type { Requests } from '../requests';
import type { Session } from '../session';

export function register(connection: Connection, { session, documents, requests }: { session: Session; documents: Documents; requests: Requests }): void {
  connection.onRequest(DenialsRequestMethod, (p: DenialsParams): DenialsResult => {
    requests.checked(DenialsRequestMethod, p);
    const usage = (session.trusted ? documents.usage(p.uri) : undefined) ?? emptyUsage();
    return { traces: usage.traces, observations: usage.observations, denials: usage.denials, more: usage.moreDenials, errors: usage.errors };
  });
}
