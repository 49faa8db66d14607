// Revocations: ids (a token's `jti`, an identity, an API session) that may no longer be used, each kept until its
// `expiresAt`, after which whatever it revoked can no longer be presented anyway and the row is pruned
// (revocation-commands.ts). Issue 40's JWT API sessions check tokens against this table.
import { EntityTable, type Row } from '../store/entity-table.ts';
import type { BaseEntity } from './base-entity.ts';

export const revocationTypes = ['JTI', 'IDENTITY', 'API_SESSION'] as const;
export type RevocationType = (typeof revocationTypes)[number];

export interface Revocation extends BaseEntity {
  readonly type: RevocationType;
  readonly expiresAt: string;
}

export const revocationTables = { revocations: 'revocations' } as const;

export function createRevocationTables(): EntityTable<Row>[] {
  return [new EntityTable<Revocation>(revocationTables.revocations)] as unknown as EntityTable<Row>[];
}
