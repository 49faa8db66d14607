// Which service an SDK's Connect names. Its body is the token `POST /sessions` returned: a Dial session of the same
// API session (only the token's hash is kept, so it is looked up by hash). OpenZiti's newest routers also take a bare
// service id in its place, and so does this: a token that is no session but is a service's id or name names that
// service (the dial is then judged by the identity's policies like any other).
import { hashToken } from '../edge/ids.ts';
import type { Service, ServiceSession } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';

export type SessionService = { readonly ok: true; readonly service: string } | { readonly ok: false; readonly code: 'INVALID_SESSION'; readonly message: string };

export function serviceOfSession(store: ModelStore, token: string, apiSessionId: string | undefined): SessionService {
  const session = store.table<ServiceSession>(serviceTables.serviceSessions).findUnique('tokenHash', hashToken(token));
  if (session) {
    if (apiSessionId === undefined || session.apiSessionId !== apiSessionId) return { ok: false, code: 'INVALID_SESSION', message: 'invalid session: it belongs to another API session' };
    if (session.type !== 'Dial') return { ok: false, code: 'INVALID_SESSION', message: `invalid session: a ${session.type} session cannot dial` };
    return { ok: true, service: session.serviceId };
  }
  const services = store.table<Service>(serviceTables.services);
  const service = services.get(token) ?? services.findUnique('name', token);
  if (service) return { ok: true, service: service.id };
  return { ok: false, code: 'INVALID_SESSION', message: 'invalid session' };
}
