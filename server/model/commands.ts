// Every change to the model is one of these commands. They carry every value the apply needs (ids, timestamps,
// hashes) so that every controller applying the same log reaches the same state.
import type { ApiSession, Authenticator, Identity } from './entities.ts';

export type IdentityChanges = Partial<
  Pick<Identity, 'name' | 'isAdmin' | 'authPolicyId' | 'externalId' | 'roleAttributes' | 'tags' | 'disabledAt' | 'disabledUntil'>
>;

export type AuthenticatorChanges = Partial<Pick<Authenticator, 'username' | 'password' | 'tags'>>;

export type ModelCommand =
  | { type: 'identity.create'; identity: Identity; authenticators?: Authenticator[] }
  | { type: 'identity.update'; id: string; at: string; changes: IdentityChanges }
  | { type: 'identity.delete'; id: string; allowDefaultAdmin?: boolean }
  | { type: 'authenticator.create'; authenticator: Authenticator }
  | { type: 'authenticator.update'; id: string; at: string; changes: AuthenticatorChanges }
  | { type: 'authenticator.delete'; id: string }
  | { type: 'apiSession.create'; session: ApiSession }
  | { type: 'apiSession.delete'; ids: string[]; reason: 'logout' | 'administrative' | 'expired' }
  | { type: 'apiSession.touch'; activity: Array<[id: string, lastActivityAt: string]> }
  /** Raft's own entries (a new leader's no-op, a membership change) advance the applied index and nothing else. */
  | { type: 'raft.noop' }
  | { type: 'raft.config' };

export type ModelCommandType = ModelCommand['type'];
