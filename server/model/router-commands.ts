// Commands on edge routers and how they apply. Enrollment is checked again here, in log order: a token redeemed
// through two controllers at once works for one of them only, an expired token never works, and a server
// certificate name another router holds is refused even when two routers enrolled for it at once.
import { isJtiRevoked, revokedTokenReason } from './revocation-commands.ts';
import type { ApplyTransaction } from '../store/model-store.ts';
import { CommandRefused } from './command-refused.ts';
import { deleteTerminatorsOf } from './terminator-commands.ts';
import type { EdgeRouter } from './router-entities.ts';
import { routerTables } from './router-entities.ts';

/** What an admin sets on a router (create, PUT, PATCH). */
export type EdgeRouterSettings = Pick<EdgeRouter, 'name' | 'roleAttributes' | 'isTunnelerEnabled' | 'cost' | 'noTraversal' | 'disabled' | 'appData' | 'tags'>;

/** A new one-time enrollment for a router. */
export interface RouterEnrollment {
  readonly token: string;
  readonly jwt: string;
  readonly createdAt: string;
  readonly expiresAt: string;
}

export type RouterCommand =
  | { type: 'edgeRouter.create'; router: EdgeRouter }
  | { type: 'edgeRouter.update'; id: string; at: string; settings: EdgeRouterSettings }
  | { type: 'edgeRouter.delete'; id: string }
  /** Uses up the router's enrollment: the token must still be its own and unexpired at `at`. */
  | {
      type: 'edgeRouter.enroll';
      id: string;
      token: string;
      at: string;
      fingerprint: string;
      certPem: string;
      /** Absent in commands from before server certificates were recorded. */
      serverFingerprint?: string;
      serverNames?: readonly string[];
    }
  /** Forgets the enrolled certificate and opens a new enrollment. */
  | { type: 'edgeRouter.reEnroll'; id: string; at: string; enrollment: RouterEnrollment };

const routerCommandTypes = new Set<string>(['edgeRouter.create', 'edgeRouter.update', 'edgeRouter.delete', 'edgeRouter.enroll', 'edgeRouter.reEnroll']);

export function isRouterCommand(command: { type: string }): command is RouterCommand {
  return routerCommandTypes.has(command.type);
}

const invalidToken = (reason: string) => new CommandRefused({ code: 'INVALID_ENROLLMENT_TOKEN', cause: { field: 'token', reason } });

/** Applies one router command; refusals throw CommandRefused (see model-state-machine.ts). */
export function applyRouterCommand(command: RouterCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'edgeRouter.create':
      tx.put<EdgeRouter>(routerTables.edgeRouters, command.router);
      return { id: command.router.id };
    case 'edgeRouter.update': {
      const current = requireRouter(tx, command.id);
      tx.put<EdgeRouter>(routerTables.edgeRouters, { ...current, ...command.settings, updatedAt: command.at });
      return undefined;
    }
    case 'edgeRouter.delete':
      requireRouter(tx, command.id);
      deleteTerminatorsOf(tx, 'routerId', command.id);
      tx.delete(routerTables.edgeRouters, command.id);
      return undefined;
    case 'edgeRouter.enroll': {
      const current = tx.table<EdgeRouter>(routerTables.edgeRouters).get(command.id);
      if (!current || current.enrollmentToken === null || current.enrollmentToken !== command.token) throw invalidToken('the enrollment token is unknown or already used');
      if (current.enrollmentExpiresAt === null || Date.parse(current.enrollmentExpiresAt) <= Date.parse(command.at)) throw invalidToken('the enrollment token expired');
      if (isJtiRevoked(tx, command.token, command.at)) throw invalidToken(revokedTokenReason);
      const taken = serverNameHeldByAnother(tx.table<EdgeRouter>(routerTables.edgeRouters).all(), current.id, command.serverNames ?? []);
      if (taken !== undefined) throw new CommandRefused({ code: 'COULD_NOT_PROCESS_CSR', cause: serverNameTakenCause(taken) });
      tx.put<EdgeRouter>(routerTables.edgeRouters, {
        ...current,
        isVerified: true,
        fingerprint: command.fingerprint,
        certPem: command.certPem,
        serverFingerprint: command.serverFingerprint ?? null,
        serverNames: command.serverNames ?? null,
        enrollmentToken: null,
        enrollmentJwt: null,
        enrollmentCreatedAt: null,
        enrollmentExpiresAt: null,
        updatedAt: command.at,
      });
      return { routerId: current.id };
    }
    case 'edgeRouter.reEnroll': {
      const current = requireRouter(tx, command.id);
      const { enrollment } = command;
      tx.put<EdgeRouter>(routerTables.edgeRouters, {
        ...current,
        isVerified: false,
        fingerprint: null,
        certPem: null,
        serverFingerprint: null,
        serverNames: null,
        enrollmentToken: enrollment.token,
        enrollmentJwt: enrollment.jwt,
        enrollmentCreatedAt: enrollment.createdAt,
        enrollmentExpiresAt: enrollment.expiresAt,
        updatedAt: command.at,
      });
      return undefined;
    }
  }
}

/** The first of `names` (`DNS:`/`IP:` keys) already on another router's server certificate, with that router. */
export function serverNameHeldByAnother(routers: readonly EdgeRouter[], selfId: string, names: readonly string[]): { name: string; routerId: string } | undefined {
  if (names.length === 0) return undefined;
  const wanted = new Set(names);
  for (const router of routers) {
    if (router.id === selfId) continue;
    const held = (router.serverNames ?? []).find((name) => wanted.has(name));
    if (held !== undefined) return { name: held, routerId: router.id };
  }
  return undefined;
}

/** The refusal's cause; the other router is not named (whoever holds the token is not an administrator). */
export function serverNameTakenCause(taken: { name: string }): { field: string; reason: string; value: string } {
  const name = taken.name.slice(taken.name.indexOf(':') + 1);
  return { field: 'serverCertCsr', reason: `"${name}" is already on another edge router's server certificate`, value: name };
}

function requireRouter(tx: ApplyTransaction, id: string): EdgeRouter {
  const row = tx.table<EdgeRouter>(routerTables.edgeRouters).get(id);
  if (!row) throw new CommandRefused({ code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: `edge router with id ${id} not found` } });
  return row;
}
