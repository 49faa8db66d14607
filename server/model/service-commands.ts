// Commands on services, service policies, posture checks and service sessions, and how they apply. What depends on
// other rows (ids a policy names, a service's configs, the API session and service a session belongs to) is checked here, in log order,
// so concurrent writers on different controllers cannot leave a dangling reference behind.
import { deleteTerminatorsOf } from './terminator-commands.ts';
import type { ApplyTransaction } from '../store/model-store.ts';
import { CommandRefused } from './command-refused.ts';
import { requireServiceConfigs } from './config-commands.ts';
import type { ApiSession } from './entities.ts';
import { tables } from './entities.ts';
import { deleteIdentityServiceConfigsOf } from './identity-service-config-references.ts';
import { referencedIds } from './policy-roles.ts';
import { routerTables } from './router-entities.ts';
import type { PostureCheck, Service, ServicePolicy, ServiceSession } from './service-entities.ts';
import { serviceTables } from './service-entities.ts';

type Body<T> = Omit<T, 'id' | 'createdAt' | 'updatedAt'>;

export type ServiceCommand =
  | { type: 'service.create'; service: Service }
  | { type: 'service.update'; id: string; at: string; service: Body<Service> }
  /** Also ends the service's sessions. */
  | { type: 'service.delete'; id: string }
  | { type: 'servicePolicy.create'; policy: ServicePolicy }
  | { type: 'servicePolicy.update'; id: string; at: string; policy: Body<ServicePolicy> }
  | { type: 'servicePolicy.delete'; id: string }
  | { type: 'postureCheck.create'; check: PostureCheck }
  /** The version is the stored one plus one, decided here. */
  | { type: 'postureCheck.update'; id: string; at: string; check: Omit<Body<PostureCheck>, 'version'> }
  | { type: 'postureCheck.delete'; id: string }
  /** Replaces the API session's earlier session of the same service and type, if any. */
  | { type: 'serviceSession.create'; session: ServiceSession }
  | { type: 'serviceSession.delete'; ids: string[] };

const serviceCommandTypes = new Set<string>([
  'service.create',
  'service.update',
  'service.delete',
  'servicePolicy.create',
  'servicePolicy.update',
  'servicePolicy.delete',
  'postureCheck.create',
  'postureCheck.update',
  'postureCheck.delete',
  'serviceSession.create',
  'serviceSession.delete',
]);

export function isServiceCommand(command: { type: string }): command is ServiceCommand {
  return serviceCommandTypes.has(command.type);
}

/** Applies one service command; refusals throw CommandRefused (see model-state-machine.ts). */
export function applyServiceCommand(command: ServiceCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'service.create':
      requireServiceConfigs(tx, command.service.configs);
      tx.put<Service>(serviceTables.services, command.service);
      return { id: command.service.id };
    case 'service.update': {
      const current = requireRow<Service>(tx, serviceTables.services, command.id, 'service');
      requireServiceConfigs(tx, command.service.configs);
      tx.put<Service>(serviceTables.services, { ...command.service, id: command.id, createdAt: current.createdAt, updatedAt: command.at });
      return undefined;
    }
    case 'service.delete': {
      requireRow<Service>(tx, serviceTables.services, command.id, 'service');
      for (const session of tx.table<ServiceSession>(serviceTables.serviceSessions).findMany('serviceId', command.id)) tx.delete(serviceTables.serviceSessions, session.id);
      deleteTerminatorsOf(tx, 'serviceId', command.id);
      deleteIdentityServiceConfigsOf(tx, 'serviceId', command.id);
      tx.delete(serviceTables.services, command.id);
      return undefined;
    }
    case 'servicePolicy.create':
      requireNamedEntities(tx, command.policy, undefined);
      tx.put<ServicePolicy>(serviceTables.servicePolicies, command.policy);
      return { id: command.policy.id };
    case 'servicePolicy.update': {
      const current = requireRow<ServicePolicy>(tx, serviceTables.servicePolicies, command.id, 'service policy');
      requireNamedEntities(tx, command.policy, current);
      tx.put<ServicePolicy>(serviceTables.servicePolicies, { ...command.policy, id: command.id, createdAt: current.createdAt, updatedAt: command.at });
      return undefined;
    }
    case 'servicePolicy.delete':
      requireRow<ServicePolicy>(tx, serviceTables.servicePolicies, command.id, 'service policy');
      tx.delete(serviceTables.servicePolicies, command.id);
      return undefined;
    case 'postureCheck.create':
      tx.put<PostureCheck>(serviceTables.postureChecks, command.check);
      return { id: command.check.id };
    case 'postureCheck.update': {
      const current = requireRow<PostureCheck>(tx, serviceTables.postureChecks, command.id, 'posture check');
      const check: PostureCheck = { ...command.check, id: command.id, createdAt: current.createdAt, updatedAt: command.at, version: current.version + 1 };
      tx.put<PostureCheck>(serviceTables.postureChecks, check);
      return { version: check.version };
    }
    case 'postureCheck.delete':
      requireRow<PostureCheck>(tx, serviceTables.postureChecks, command.id, 'posture check');
      tx.delete(serviceTables.postureChecks, command.id);
      return undefined;
    case 'serviceSession.create': {
      const { session } = command;
      // The API session may have ended, or the service been deleted, since the request was checked.
      const apiSession = requireRow<ApiSession>(tx, tables.apiSessions, session.apiSessionId, 'api session');
      if (apiSession.identityId !== session.identityId) throw notFound('api session', session.apiSessionId);
      requireRow<Service>(tx, serviceTables.services, session.serviceId, 'service');
      const sessions = tx.table<ServiceSession>(serviceTables.serviceSessions);
      for (const earlier of sessions.findMany('apiSessionId', session.apiSessionId)) {
        if (earlier.serviceId === session.serviceId && earlier.type === session.type) tx.delete(serviceTables.serviceSessions, earlier.id);
      }
      tx.put<ServiceSession>(serviceTables.serviceSessions, session);
      return { id: session.id };
    }
    case 'serviceSession.delete': {
      // Already gone (the API session ended meanwhile) is not an error: what remains is deleted.
      let deleted = 0;
      for (const id of command.ids) if (tx.delete(serviceTables.serviceSessions, id)) deleted++;
      return { deleted };
    }
  }
}

/** Every `@id` a policy adds must name an existing entity of the right kind; ids it already held are kept as they are. */
function requireNamedEntities(tx: ApplyTransaction, policy: Body<ServicePolicy>, current: ServicePolicy | undefined): void {
  const lists = [
    { field: 'identityRoles', table: tables.identities, entities: 'identities', roles: policy.identityRoles, held: current?.identityRoles },
    { field: 'serviceRoles', table: serviceTables.services, entities: 'services', roles: policy.serviceRoles, held: current?.serviceRoles },
    { field: 'postureCheckRoles', table: serviceTables.postureChecks, entities: 'posture checks', roles: policy.postureCheckRoles, held: current?.postureCheckRoles },
  ];
  for (const { field, table, entities, roles, held } of lists) {
    // A tunneler-enabled edge router's identity is the router itself (its id), as OpenZiti gives it an identity with
    // the router's id: `@<router id>` names it among the identities.
    const exists = (id: string) => tx.table(table).get(id) !== undefined || (table === tables.identities && tx.table(routerTables.edgeRouters).get(id) !== undefined);
    const missing = referencedIds(roles).filter((id) => !held?.includes(`@${id}`) && !exists(id));
    if (missing.length > 0) throw new CommandRefused({ code: 'COULD_NOT_VALIDATE', cause: { field, reason: `no ${entities} found with the given ids`, value: missing } });
  }
}

function notFound(entity: string, id: string): CommandRefused {
  return new CommandRefused({ code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: `${entity} with id ${id} not found` } });
}

function requireRow<T extends { id: string }>(tx: ApplyTransaction, table: string, id: string, entity: string): T {
  const row = tx.table<T>(table).get(id);
  if (!row) throw notFound(entity, id);
  return row;
}
