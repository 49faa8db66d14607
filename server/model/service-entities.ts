// Services and who may use them: services, service policies (Dial/Bind, by roles) and posture checks (MFA, OS, MAC, PROCESS, PROCESS_MULTI, DOMAIN), and the
// service sessions a client opens to dial or bind one.
import { EntityTable, type Row } from '../store/entity-table.ts';
import type { BaseEntity } from './base-entity.ts';

export interface Service extends BaseEntity {
  readonly name: string;
  readonly encryptionRequired: boolean;
  readonly configs: readonly string[];
  readonly roleAttributes: readonly string[];
  readonly terminatorStrategy: string;
  readonly maxIdleTimeMillis: number;
}

export type ServicePolicyType = 'Dial' | 'Bind';
export type RoleSemantic = 'AllOf' | 'AnyOf';

export interface ServicePolicy extends BaseEntity {
  readonly name: string;
  readonly type: ServicePolicyType;
  readonly semantic: RoleSemantic;
  readonly identityRoles: readonly string[];
  readonly serviceRoles: readonly string[];
  readonly postureCheckRoles: readonly string[];
}

export type PostureCheckType = 'MFA' | 'OS' | 'MAC' | 'PROCESS' | 'PROCESS_MULTI' | 'DOMAIN';
export const postureCheckTypes: readonly PostureCheckType[] = ['OS', 'PROCESS', 'DOMAIN', 'MAC', 'MFA', 'PROCESS_MULTI'];

export type OsType = 'Windows' | 'WindowsServer' | 'Android' | 'iOS' | 'Linux' | 'macOS';
export const osTypes: readonly OsType[] = ['Windows', 'WindowsServer', 'Android', 'iOS', 'Linux', 'macOS'];

/** An OS a check allows, with the version ranges it allows (none: any version). */
export interface AllowedOs {
  readonly type: OsType;
  readonly versions: readonly string[];
}

/** A PROCESS check's process: running at `path`, with one of `hashes` (when any) and signed by `signerFingerprint` (when set). */
export interface CheckedProcess {
  readonly osType: OsType;
  readonly path: string;
  readonly hashes: readonly string[];
  readonly signerFingerprint?: string;
}

/** A PROCESS_MULTI check's process: as above, with any of `signerFingerprints` (when any). */
export interface CheckedProcessOfMany {
  readonly osType: OsType;
  readonly path: string;
  readonly hashes: readonly string[];
  readonly signerFingerprints: readonly string[];
}

export interface PostureCheck extends BaseEntity {
  readonly name: string;
  readonly typeId: PostureCheckType;
  readonly roleAttributes: readonly string[];
  /** MFA: seconds an MFA answer counts for; -1 (anything 0 or less is stored as -1): no timeout. Other types: -1. */
  readonly timeoutSeconds: number;
  readonly promptOnWake: boolean;
  readonly promptOnUnlock: boolean;
  readonly ignoreLegacyEndpoints: boolean;
  /** OS only. */
  readonly operatingSystems?: readonly AllowedOs[];
  /** MAC only. */
  readonly macAddresses?: readonly string[];
  /** PROCESS only. */
  readonly process?: CheckedProcess;
  /** PROCESS_MULTI only. */
  readonly semantic?: RoleSemantic;
  readonly processes?: readonly CheckedProcessOfMany[];
  /** DOMAIN only. */
  readonly domains?: readonly string[];
  /** 1 at creation, one more on every update (set by the apply, so concurrent updates cannot share a version). */
  readonly version: number;
}

/** A client's permission, within one API session, to dial or bind one service. */
export interface ServiceSession extends BaseEntity {
  readonly apiSessionId: string;
  readonly identityId: string;
  readonly serviceId: string;
  readonly type: ServicePolicyType;
  /** SHA-256 of the session token; the token is returned once, at creation. */
  readonly tokenHash: string;
  /** The policies whose posture checks passed when the session was created (the management view's servicePolicies). */
  readonly servicePolicyIds: readonly string[];
}

export const serviceTables = {
  services: 'services',
  servicePolicies: 'servicePolicies',
  postureChecks: 'postureChecks',
  serviceSessions: 'serviceSessions',
} as const;

export function createServiceTables(): EntityTable<Row>[] {
  return [
    new EntityTable<Service>(serviceTables.services).uniqueIndex('name', (row) => row.name),
    new EntityTable<ServicePolicy>(serviceTables.servicePolicies).uniqueIndex('name', (row) => row.name),
    new EntityTable<PostureCheck>(serviceTables.postureChecks).uniqueIndex('name', (row) => row.name),
    new EntityTable<ServiceSession>(serviceTables.serviceSessions)
      .uniqueIndex('tokenHash', (row) => row.tokenHash)
      .multiIndex('apiSessionId', (row) => row.apiSessionId)
      .multiIndex('identityId', (row) => row.identityId)
      .multiIndex('serviceId', (row) => row.serviceId),
  ] as unknown as EntityTable<Row>[];
}
