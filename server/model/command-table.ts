// Which file applies which command: one applier per command family (the part of the type before the dot), in one
// table the compiler checks is complete. A command type of no family here is refused, changing nothing.
import type { ApplyTransaction } from '../store/model-store.ts';
import { applyApiSessionCommand } from './api-session-commands.ts';
import { applyAuthPolicyCommand } from './auth-policy-commands.ts';
import { applyAuthenticatorCommand } from './authenticator-commands.ts';
import { applyCaCommand } from './ca-commands.ts';
import type { ModelCommand, ModelCommandType } from './commands.ts';
import { applyConfigCommand, isConfigCommand } from './config-commands.ts';
import { applyEdgeRouterPolicyCommand, isEdgeRouterPolicyCommand } from './edge-router-policy-commands.ts';
import { applyEnrollmentCommand } from './enrollment-commands.ts';
import { applyExtJwtSignerCommand } from './ext-jwt-signer-commands.ts';
import { applyIdentityCommand } from './identity-commands.ts';
import { applyIdentityServiceConfigCommand } from './identity-service-config-commands.ts';
import { applyMfaCommand, isMfaCommand } from './mfa-commands.ts';
import { unknownCommand } from './require-row.ts';
import { applyRouterCommand, isRouterCommand } from './router-commands.ts';
import { applyServiceCommand, isServiceCommand } from './service-commands.ts';
import { applyTerminatorCommand, isTerminatorCommand } from './terminator-commands.ts';
import { applyRevocationCommand, isRevocationCommand } from './revocation-commands.ts';
import { applyOidcKeyCommand, isOidcKeyCommand } from './oidc-key-commands.ts';
import { applyControllerSettingCommand, isControllerSettingCommand } from './controller-setting-commands.ts';
import { applyClusterIdentityCommand } from './cluster-identity.ts';

/** `identity` of `identity.create`: every family of ModelCommand. */
export type CommandFamily = ModelCommandType extends infer T ? (T extends `${infer Family}.${string}` ? Family : never) : never;

type FamilyCommand<F extends CommandFamily> = Extract<ModelCommand, { type: `${F}.${string}` }>;

type Applier<C> = (command: C, tx: ApplyTransaction) => unknown;

/** Families whose file keeps its own list of types: a type outside it is refused like one of no family. */
function guarded<C extends { type: string }>(isKnown: (command: { type: string }) => command is C, apply: Applier<C>): Applier<C> {
  return (command, tx) => (isKnown(command) ? apply(command, tx) : unknownCommand((command as { type: string }).type));
}

const appliers: { readonly [F in CommandFamily]: Applier<FamilyCommand<F>> } = {
  identity: applyIdentityCommand,
  authenticator: applyAuthenticatorCommand,
  authPolicy: applyAuthPolicyCommand,
  extJwtSigner: applyExtJwtSignerCommand,
  ca: applyCaCommand,
  enrollment: applyEnrollmentCommand,
  apiSession: applyApiSessionCommand,
  mfa: guarded(isMfaCommand, applyMfaCommand),
  service: guarded(isServiceCommand, applyServiceCommand),
  servicePolicy: guarded(isServiceCommand, applyServiceCommand),
  postureCheck: guarded(isServiceCommand, applyServiceCommand),
  serviceSession: guarded(isServiceCommand, applyServiceCommand),
  configType: guarded(isConfigCommand, applyConfigCommand),
  config: guarded(isConfigCommand, applyConfigCommand),
  edgeRouter: guarded(isRouterCommand, applyRouterCommand),
  edgeRouterPolicy: guarded(isEdgeRouterPolicyCommand, applyEdgeRouterPolicyCommand),
  serviceEdgeRouterPolicy: guarded(isEdgeRouterPolicyCommand, applyEdgeRouterPolicyCommand),
  terminator: guarded(isTerminatorCommand, applyTerminatorCommand),
  revocation: guarded(isRevocationCommand, applyRevocationCommand),
  oidcKey: guarded(isOidcKeyCommand, applyOidcKeyCommand),
  controllerSetting: guarded(isControllerSettingCommand, applyControllerSettingCommand),
  identityServiceConfig: applyIdentityServiceConfigCommand,
  clusterIdentity: applyClusterIdentityCommand,
  // Raft's own entries (a new leader's no-op, a membership change) advance the applied index and nothing else.
  raft: (command) => (command.type === 'raft.noop' || command.type === 'raft.config' ? undefined : unknownCommand((command as { type: string }).type)),
};

/** Applies one command inside its entry's transaction; a refusal throws CommandRefused (model-state-machine.ts). */
export function applyCommand(command: ModelCommand, tx: ApplyTransaction): unknown {
  const type: string = command.type;
  const dot = type.indexOf('.');
  const family = dot < 0 ? '' : type.slice(0, dot);
  if (!Object.hasOwn(appliers, family)) return unknownCommand(type);
  return (appliers[family as CommandFamily] as Applier<ModelCommand>)(command, tx);
}
