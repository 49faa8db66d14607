import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Row } from '../store/entity-table.ts';
import { checkDataIntegrity, type IntegrityRows } from './data-integrity.ts';

function rowsOf(tables: Record<string, Array<Record<string, unknown>>>): IntegrityRows {
  return {
    table<T extends Row>(name: string) {
      const rows = (tables[name] ?? []) as unknown as T[];
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
      configs: [{ id: 'c1' }],
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
});
