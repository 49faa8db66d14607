import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Row } from '../store/entity-table.ts';
import { EntityTable } from '../store/entity-table.ts';
import { checkDataIntegrity, checkIndexes, type IntegrityRows } from './data-integrity.ts';

/** What a row of these tables holds when a test does not say (a clean reference). */
const defaults: Record<string, Record<string, unknown>> = {
  identities: { authPolicyId: 'default' },
  services: { configs: [] },
};

function rowsOf(tables: Record<string, Array<Record<string, unknown>>>): IntegrityRows {
  return {
    table<T extends Row>(name: string) {
      const rows = (tables[name] ?? []).map((row) => ({ name: row.id, ...defaults[name], ...row })) as unknown as T[];
      return { all: () => rows, get: (id: string) => rows.find((row) => row.id === id) };
    },
  };
}

const at = '2026-01-01T00:00:00.000Z';
const policy = (id: string, identityRoles: string[], serviceRoles: string[] = [], postureCheckRoles: string[] = []) => ({
  id, createdAt: at, updatedAt: at, tags: {}, name: id, type: 'Dial', semantic: 'AnyOf', identityRoles, serviceRoles, postureCheckRoles,
});

describe('data integrity check', () => {
  it('a clean model has no findings; a router id is an identity a policy may name', () => {
    const rows = rowsOf({ identities: [{ id: 'alice' }], edgeRouters: [{ id: 'r1' }], services: [{ id: 's1' }], servicePolicies: [policy('p1', ['@alice', '@r1', '#all'], ['@s1'])] });
    assert.deepEqual(checkDataIntegrity(rows, at), []);
  });

  it('finds dangling policy roles and fixes them by dropping only those roles', () => {
    const rows = rowsOf({ identities: [{ id: 'alice' }], services: [], postureChecks: [], servicePolicies: [policy('p1', ['@alice', '@gone', '#ops'], ['@s9'], ['@pc9', '#mfa'])] });
    const [finding, ...rest] = checkDataIntegrity(rows, at);
    assert.equal(rest.length, 0);
    assert.equal(finding!.description, 'service policy p1 (p1) names rows that do not exist: identityRoles @gone, serviceRoles @s9, postureCheckRoles @pc9');
    assert.deepEqual(finding!.fix, {
      type: 'servicePolicy.update', id: 'p1', at,
      policy: { tags: {}, name: 'p1', type: 'Dial', semantic: 'AnyOf', identityRoles: ['@alice', '#ops'], serviceRoles: [], postureCheckRoles: ['#mfa'] },
    });
  });

  it('finds authenticators, API sessions and service sessions whose owners are gone, each fixed by deleting it', () => {
    const rows = rowsOf({
      identities: [{ id: 'alice' }],
      services: [{ id: 's1' }],
      authenticators: [{ id: 'a1', identityId: 'alice', method: 'updb' }, { id: 'a2', identityId: 'bob', method: 'cert' }],
      apiSessions: [{ id: 'as1', identityId: 'alice' }, { id: 'as2', identityId: 'bob' }],
      serviceSessions: [
        { id: 'ss1', identityId: 'alice', serviceId: 's1', apiSessionId: 'as1' },
        { id: 'ss2', identityId: 'alice', serviceId: 's9', apiSessionId: 'as1' },
        { id: 'ss3', identityId: 'alice', serviceId: 's1', apiSessionId: 'as9' },
      ],
    });
    const findings = checkDataIntegrity(rows, at);
    assert.deepEqual(findings.map((finding) => finding.description), [
      'authenticator a2 (cert) belongs to identity bob, which does not exist',
      'API session as2 belongs to identity bob, which does not exist',
      'service session ss2 belongs to service s9, which does not exist',
      'service session ss3 belongs to API session as9, which does not exist',
    ]);
    assert.deepEqual(findings.map((finding) => finding.fix), [
      { type: 'authenticator.delete', id: 'a2' },
      { type: 'apiSession.delete', ids: ['as2'], reason: 'administrative' },
      { type: 'serviceSession.delete', ids: ['ss2'] },
      { type: 'serviceSession.delete', ids: ['ss3'] },
    ]);
  });

  it('finds identity service configs whose identity, service or config is gone, each fixed by deleting it', () => {
    const pair = (identityId: string, serviceId: string, configId: string) => ({ id: `${identityId}/${serviceId}/t`, identityId, serviceId, configTypeId: 't', configId });
    const rows = rowsOf({
      identities: [{ id: 'alice' }],
      services: [{ id: 's1' }],
      configTypes: [{ id: 't' }],
      configs: [{ id: 'c1', configTypeId: 't' }],
      identityServiceConfigs: [pair('alice', 's1', 'c1'), pair('bob', 's1', 'c1'), pair('alice', 's9', 'c1'), pair('alice', 's1', 'c9')],
    });
    const findings = checkDataIntegrity(rows, at);
    assert.deepEqual(findings.map((finding) => finding.description), [
      'identity service config bob/s1/t (config c1 for identity bob and service s1) names identity bob, which does not exist',
      'identity service config alice/s9/t (config c1 for identity alice and service s9) names service s9, which does not exist',
      'identity service config alice/s1/t (config c9 for identity alice and service s1) names config c9, which does not exist',
    ]);
    assert.deepEqual(findings.map((finding) => finding.fix), [
      { type: 'identityServiceConfig.delete', ids: ['bob/s1/t'] },
      { type: 'identityServiceConfig.delete', ids: ['alice/s9/t'] },
      { type: 'identityServiceConfig.delete', ids: ['alice/s1/t'] },
    ]);
  });

  it('an AllOf policy keeps a dangling role (dropping it would widen the policy) unless nothing else is left or #all is there', () => {
    const allOf = (id: string, identityRoles: string[]) => ({ ...policy(id, identityRoles, ['#all']), semantic: 'AllOf' });
    const rows = rowsOf({ identities: [], services: [], servicePolicies: [allOf('narrow', ['#ops', '@gone']), allOf('only', ['@gone']), allOf('everyone', ['#all'])] });
    const findings = checkDataIntegrity(rows, at);
    assert.deepEqual(findings.map((finding) => finding.description), [
      'service policy narrow (narrow) names rows that do not exist: identityRoles @gone; not fixed: the policy is AllOf, so dropping them would change what it selects (edit the policy)',
      'service policy only (only) names rows that do not exist: identityRoles @gone',
    ]);
    assert.equal(findings[0]!.fix, undefined);
    assert.deepEqual((findings[1]!.fix as unknown as { policy: { identityRoles: string[] } }).policy.identityRoles, []);
  });

  it('finds edge router policies and service edge router policies naming missing identities, routers and services, fixed by dropping the roles', () => {
    const erp = { id: 'erp1', createdAt: at, updatedAt: at, tags: {}, name: 'erp', semantic: 'AnyOf', identityRoles: ['@alice', '@bob', '@r1'], edgeRouterRoles: ['@r1', '@r9', '#edge'] };
    const serp = { id: 'serp1', createdAt: at, updatedAt: at, tags: {}, name: 'serp', semantic: 'AnyOf', serviceRoles: ['@s9', '@s1'], edgeRouterRoles: ['#all'] };
    const clean = { ...serp, id: 'serp2', name: 'clean', serviceRoles: ['@s1'], edgeRouterRoles: ['@r1'] };
    const rows = rowsOf({ identities: [{ id: 'alice' }], edgeRouters: [{ id: 'r1' }], services: [{ id: 's1' }], edgeRouterPolicies: [erp], serviceEdgeRouterPolicies: [serp, clean] });
    const findings = checkDataIntegrity(rows, at);
    assert.deepEqual(findings.map((finding) => finding.description), [
      'edge router policy erp (erp1) names rows that do not exist: identityRoles @bob, edgeRouterRoles @r9',
      'service edge router policy serp (serp1) names rows that do not exist: serviceRoles @s9',
    ]);
    assert.deepEqual(findings.map((finding) => finding.fix), [
      { type: 'edgeRouterPolicy.update', id: 'erp1', at, policy: { tags: {}, name: 'erp', semantic: 'AnyOf', identityRoles: ['@alice', '@r1'], edgeRouterRoles: ['@r1', '#edge'] } },
      { type: 'serviceEdgeRouterPolicy.update', id: 'serp1', at, policy: { tags: {}, name: 'serp', semantic: 'AnyOf', serviceRoles: ['@s1'], edgeRouterRoles: ['#all'] } },
    ]);
  });

  it('finds enrollments and MFA enrollments of missing identities, each fixed by deleting it', () => {
    const rows = rowsOf({
      identities: [{ id: 'alice' }],
      enrollments: [{ id: 'e1', identityId: 'alice', method: 'ott' }, { id: 'e2', identityId: 'bob', method: 'updb' }],
      mfas: [{ id: 'm1', identityId: 'alice' }, { id: 'm2', identityId: 'bob' }],
    });
    const findings = checkDataIntegrity(rows, at);
    assert.deepEqual(findings.map((finding) => [finding.description, finding.fix]), [
      ['enrollment e2 (updb) belongs to identity bob, which does not exist', { type: 'enrollment.delete', id: 'e2' }],
      ['MFA enrollment m2 belongs to identity bob, which does not exist', { type: 'mfa.delete', identityId: 'bob' }],
    ]);
  });

  it('finds terminators and terminator settings of missing services or routers, each fixed by deleting it', () => {
    const rows = rowsOf({
      services: [{ id: 's1' }],
      edgeRouters: [{ id: 'r1' }],
      terminators: [{ id: 't1', serviceId: 's1', routerId: 'r1', address: 'tcp:a:1' }, { id: 't2', serviceId: 's9', routerId: 'r1', address: 'tcp:b:2' }, { id: 't3', serviceId: 's1', routerId: 'r9', address: 'tcp:c:3' }],
      terminatorSettings: [{ id: 'ts1', serviceId: 's1', routerId: 'r1' }, { id: 'ts2', serviceId: 's1', routerId: 'r9' }],
    });
    const findings = checkDataIntegrity(rows, at);
    assert.deepEqual(findings.map((finding) => [finding.description, finding.fix]), [
      ['terminator t2 (tcp:b:2) names service s9, which does not exist', { type: 'terminator.delete', id: 't2' }],
      ['terminator t3 (tcp:c:3) names router r9, which does not exist', { type: 'terminator.delete', id: 't3' }],
      ['terminator settings ts2 name router r9, which does not exist', { type: 'terminator.deleteSettings', id: 'ts2' }],
    ]);
  });

  it('finds services naming missing configs (fixed by taking them off) and configs of a missing type (reported only; the built-in types exist unstored)', () => {
    const service = { id: 's1', createdAt: at, updatedAt: at, tags: {}, name: 'svc', encryptionRequired: true, configs: ['c1', 'c9'], roleAttributes: [], terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 };
    const rows = rowsOf({ configTypes: [{ id: 't' }], configs: [{ id: 'c1', name: 'good', configTypeId: 't' }, { id: 'c2', name: 'typeless', configTypeId: 't9' }, { id: 'c3', name: 'host', configTypeId: 'NH5p4FpGR' }], services: [service, { id: 's2', configs: ['c1'] }] });
    const findings = checkDataIntegrity(rows, at);
    assert.deepEqual(findings.map((finding) => [finding.description, finding.fix]), [
      ['config typeless (c2) is of config type t9, which does not exist; not fixed: delete the config, or create it again under a type that exists', undefined],
      ['service svc (s1) names configs that do not exist: c9', { type: 'service.update', id: 's1', at, service: { tags: {}, name: 'svc', encryptionRequired: true, configs: ['c1'], roleAttributes: [], terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 } }],
    ]);
  });

  it('finds identities of a missing auth policy and auth policies naming missing signers; only an allowed signer is taken off', () => {
    const authPolicy = (id: string, allowedSigners: string[], requireExtJwtSigner: string | null) => ({
      id, createdAt: at, updatedAt: at, tags: {}, name: id,
      primary: { cert: { allowed: true, allowExpiredCerts: false }, updb: {}, extJwt: { allowed: true, allowedSigners } },
      secondary: { requireTotp: false, requireExtJwtSigner },
    });
    const rows = rowsOf({
      identities: [{ id: 'alice', authPolicyId: 'default' }, { id: 'bob', authPolicyId: 'ap1' }, { id: 'carol', authPolicyId: 'ap9' }],
      externalJwtSigners: [{ id: 'j1' }],
      authPolicies: [authPolicy('ap1', ['j1', 'j9'], 'j1'), authPolicy('ap2', ['j8'], 'j7'), authPolicy('ap3', ['j1'], null)],
    });
    const findings = checkDataIntegrity(rows, at);
    assert.deepEqual(findings.map((finding) => finding.description), [
      "identity carol (carol) uses auth policy ap9, which does not exist; not fixed: set the identity's auth policy",
      'auth policy ap1 (ap1) allows external JWT signers that do not exist: j9',
      'auth policy ap2 (ap2) requires external JWT signer j7, which does not exist; not fixed: dropping the requirement would weaken the policy (edit it)',
    ]);
    const { id, createdAt, updatedAt, ...repaired } = authPolicy('ap1', ['j1'], 'j1');
    assert.deepEqual([id, createdAt, updatedAt], ['ap1', at, at]);
    assert.deepEqual(findings[1]!.fix, { type: 'authPolicy.update', id: 'ap1', at, policy: repaired });
    assert.equal(findings[0]!.fix, undefined);
    assert.equal(findings[2]!.fix, undefined);
  });

  it('a model whose every reference holds has no findings in any of the new checks', () => {
    const rows = rowsOf({
      identities: [{ id: 'alice', authPolicyId: 'ap1' }],
      authPolicies: [{ id: 'ap1', primary: { extJwt: { allowedSigners: ['j1'] } }, secondary: { requireExtJwtSigner: 'j1' } }],
      externalJwtSigners: [{ id: 'j1' }],
      edgeRouters: [{ id: 'r1' }],
      services: [{ id: 's1', configs: ['c1'] }],
      configTypes: [{ id: 't' }],
      configs: [{ id: 'c1', configTypeId: 't' }],
      enrollments: [{ id: 'e1', identityId: 'alice' }],
      mfas: [{ id: 'm1', identityId: 'alice' }],
      terminators: [{ id: 't1', serviceId: 's1', routerId: 'r1' }],
      terminatorSettings: [{ id: 't2', serviceId: 's1', routerId: 'r1' }],
      edgeRouterPolicies: [{ id: 'erp', semantic: 'AllOf', identityRoles: ['@alice', '@r1'], edgeRouterRoles: ['@r1'] }],
      serviceEdgeRouterPolicies: [{ id: 'serp', semantic: 'AllOf', serviceRoles: ['@s1'], edgeRouterRoles: ['#all'] }],
    });
    assert.deepEqual(checkDataIntegrity(rows, at), []);
  });
});

describe('index check', () => {
  it('reports each disagreement of a table with its rows, fixed by rebuilding that table; agreeing tables report nothing', () => {
    const identities = new EntityTable<{ id: string; name: string }>('identities').uniqueIndex('name', (row) => row.name);
    const services = new EntityTable<{ id: string; name: string }>('services').uniqueIndex('name', (row) => row.name);
    identities.put({ id: 'i1', name: 'alice' });
    services.put({ id: 's1', name: 'web' });
    assert.deepEqual(checkIndexes([identities, services]), []);
    Object.assign(identities.get('i1')!, { name: 'alicia' });
    assert.deepEqual(checkIndexes([identities, services]), [
      { description: "identities index name: row i1 is not reachable by its value 'alicia'", rebuildIndexesOf: 'identities' },
      { description: "identities index name: the value 'alice' points at row i1, whose value is 'alicia'", rebuildIndexesOf: 'identities' },
    ]);
  });
});
