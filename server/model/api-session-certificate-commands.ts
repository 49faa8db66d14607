// How an API session's certificates change: one is added (at most `max` unexpired ones per session; expired ones
// are dropped as the command's time says, so every controller drops the same), or one is removed. They live on the
// session row, so ending the session (end-api-session.ts) ends them with it.
import type { ApplyTransaction } from '../store/model-store.ts';
import type { ApiSession, ApiSessionCertificate } from './entities.ts';
import { tables } from './entities.ts';
import { refuse, requireRow } from './require-row.ts';

export function addApiSessionCertificate(tx: ApplyTransaction, id: string, at: string, certificate: ApiSessionCertificate, max: number): { id: string } {
  const session = requireRow<ApiSession>(tx, tables.apiSessions, id, 'apiSession');
  const live = (session.certificates ?? []).filter((existing) => existing.validTo > at);
  if (live.length >= max) {
    refuse('COULD_NOT_VALIDATE', 'csr', `this API session already holds ${live.length} unexpired certificates, the most it may: delete one first (DELETE /current-api-session/certificates/{id})`);
  }
  tx.put<ApiSession>(tables.apiSessions, { ...session, certificates: [...live, certificate] }, { silent: true });
  return { id: certificate.id };
}

export function removeApiSessionCertificate(tx: ApplyTransaction, id: string, certificateId: string): { deleted: boolean } {
  const session = tx.table<ApiSession>(tables.apiSessions).get(id);
  const certificates = session?.certificates ?? [];
  if (!session || !certificates.some((existing) => existing.id === certificateId)) return { deleted: false };
  tx.put<ApiSession>(tables.apiSessions, { ...session, certificates: certificates.filter((existing) => existing.id !== certificateId) }, { silent: true });
  return { deleted: true };
}
