// The public halves of the keys controllers sign OIDC tokens with. Each controller makes its own key pair in memory
// (the private key never leaves the process, never reaches a disk or the raft log) and publishes the public key
// here, so every controller verifies every other's tokens. A published key is retired when its controller makes a
// newer one (a rotation or a restart) and pruned once no token it signed can still be presented.
import { EntityTable, type Row } from '../store/entity-table.ts';
import type { BaseEntity } from './base-entity.ts';

/** A public key as a JWK (RFC 7517), the members OIDC relying parties read. */
export interface PublicJwk {
  readonly kty: string;
  readonly kid: string;
  readonly alg: string;
  readonly use: 'sig';
  readonly n?: string;
  readonly e?: string;
  readonly crv?: string;
  readonly x?: string;
  readonly y?: string;
}

export interface OidcSigningKey extends BaseEntity {
  /** The controller that holds the private key. */
  readonly controllerId: string;
  /** The `iss` of that controller's tokens: a token signed with this key must name it. */
  readonly issuer: string;
  readonly publicJwk: PublicJwk;
  /** When its controller stopped signing with it; null while it is that controller's current key. */
  readonly retiredAt: string | null;
}

export const oidcKeyTables = { signingKeys: 'oidcSigningKeys' } as const;

/** At most this many keys per controller: a crash-looping controller cannot grow the table without bound. */
export const maxKeysPerController = 16;

export function createOidcKeyTables(): EntityTable<Row>[] {
  return [new EntityTable<OidcSigningKey>(oidcKeyTables.signingKeys).multiIndex('controllerId', (row) => row.controllerId)] as unknown as EntityTable<Row>[];
}
