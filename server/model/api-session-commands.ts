// How API session commands apply: a session belongs to an existing identity; ending one ends its service sessions
// (end-api-session.ts); activity is written in batches and only ever moves forward, silently (no change events).
import type { ApplyTransaction } from '../store/model-store.ts';
import type { ModelCommand } from './commands.ts';
import { endApiSession } from './end-api-session.ts';
import { addApiSessionCertificate, removeApiSessionCertificate } from './api-session-certificate-commands.ts';
import type { ApiSession, Identity } from './entities.ts';
import { tables } from './entities.ts';
import { mergePostureUpdates } from './posture-data.ts';
import { requireRow, unknownCommand } from './require-row.ts';

export type ApiSessionCommand = Extract<ModelCommand, { type: `apiSession.${string}` }>;

export function applyApiSessionCommand(command: ApiSessionCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'apiSession.create': {
      requireRow<Identity>(tx, tables.identities, command.session.identityId, 'identity', 'identityId');
      tx.put<ApiSession>(tables.apiSessions, command.session);
      return { id: command.session.id };
    }
    case 'apiSession.delete': {
      // Sessions may already be gone (a logout racing an expiry sweep): deleting what remains is not an error.
      let deleted = 0;
      for (const id of command.ids) if (endApiSession(tx, id)) deleted++;
      return { deleted };
    }
    case 'apiSession.touch': {
      const sessions = tx.table<ApiSession>(tables.apiSessions);
      for (const [id, lastActivityAt] of command.activity) {
        const current = sessions.get(id);
        if (current && lastActivityAt > current.lastActivityAt) tx.put<ApiSession>(tables.apiSessions, { ...current, lastActivityAt }, { silent: true });
      }
      return undefined;
    }
    case 'apiSession.satisfyQuery': {
      const current = tx.table<ApiSession>(tables.apiSessions).get(command.id);
      if (current) tx.put<ApiSession>(tables.apiSessions, { ...current, authQueries: current.authQueries.filter((query) => query.typeId !== command.typeId) });
      return undefined;
    }
    case 'apiSession.posture': {
      // The session may have ended while the responses were on their way: then there is nothing to keep them on.
      const current = tx.table<ApiSession>(tables.apiSessions).get(command.id);
      if (current) tx.put<ApiSession>(tables.apiSessions, { ...current, postureData: mergePostureUpdates(current.postureData, command.updates, command.at) });
      return undefined;
    }
    case 'apiSession.addCertificate':
      return addApiSessionCertificate(tx, command.id, command.at, command.certificate, command.max);
    case 'apiSession.removeCertificate':
      return removeApiSessionCertificate(tx, command.id, command.certificateId);
    default:
      return unknownCommand((command as { type: string }).type);
  }
}
