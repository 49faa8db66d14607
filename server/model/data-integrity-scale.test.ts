// The data-integrity check's cost at the size the product is sized for: 100k identities, each with an authenticator
// and an API session, and policies naming them. It must stay linear (lookups by id), so a check is seconds, not
// minutes; the figure is printed for the record (docs/operator-guide.md quotes it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntityTable, type Row } from '../store/entity-table.ts';
import { checkDataIntegrity, indexFindings } from './data-integrity.ts';
import { createModelTables } from './entities.ts';

const at = '2026-01-01T00:00:00.000Z';
const base = (id: string) => ({ id, createdAt: at, updatedAt: at, tags: {} });

test('at 100k identities the whole check (indexes and references) takes seconds and finds the one planted orphan', () => {
  const tables = new Map(createModelTables().map((table) => [table.name, table]));
  const put = (name: string, row: Record<string, unknown>) => (tables.get(name) as EntityTable<Row>).put(row as unknown as Row);
  const count = 100_000;
  for (let i = 0; i < count; i++) {
    put('identities', { ...base(`id-${i}`), name: `identity-${i}`, authPolicyId: 'default', externalId: null, roleAttributes: ['all'] });
    put('authenticators', { ...base(`auth-${i}`), method: 'updb', identityId: `id-${i}`, username: `user-${i}` });
    put('apiSessions', { ...base(`session-${i}`), identityId: `id-${i}`, tokenHash: `hash-${i}` });
  }
  for (let i = 0; i < 1000; i++) {
    put('servicePolicies', { ...base(`sp-${i}`), name: `sp-${i}`, type: 'Dial', semantic: 'AnyOf', identityRoles: Array.from({ length: 20 }, (_, k) => `@id-${(i * 20 + k) % count}`), serviceRoles: ['#all'], postureCheckRoles: [] });
  }
  put('authenticators', { ...base('orphan'), method: 'cert', identityId: 'gone', fingerprint: 'f' });
  const rows = { table: <T extends Row>(name: string) => tables.get(name) as unknown as EntityTable<T> };

  const started = performance.now();
  // As the controller runs it: each table a slice of 10k rows at a time (database-admin.ts pauses between slices).
  let longestSliceMs = 0;
  let longestTable = '';
  const findings = [];
  for (const table of tables.values()) {
    const disagreements: string[] = [];
    let sliceStarted = performance.now();
    const sliceEnded = () => {
      const sliceMs = performance.now() - sliceStarted;
      if (sliceMs > longestSliceMs) [longestSliceMs, longestTable] = [sliceMs, table.name];
      sliceStarted = performance.now();
    };
    for (const slice of table.indexCheckSteps(disagreements)) {
      void slice;
      sliceEnded();
    }
    sliceEnded();
    findings.push(...indexFindings(table.name, disagreements));
  }
  const referencesStarted = performance.now();
  findings.push(...checkDataIntegrity(rows, at));
  const referencesMs = performance.now() - referencesStarted;
  const elapsedMs = performance.now() - started;
  console.log(`data-integrity check at ${count} identities (${3 * count + 1001} rows): ${elapsedMs.toFixed(0)} ms in all; longest slice of the index check (${longestTable}) ${longestSliceMs.toFixed(0)} ms; references ${referencesMs.toFixed(0)} ms`);
  assert.deepEqual(findings.map((finding) => finding.description), ['authenticator orphan (cert) belongs to identity gone, which does not exist']);
  // Generous for a shared, loaded machine; a check that is not linear takes hours here, not seconds.
  assert.ok(elapsedMs < 30_000, `the check took ${elapsedMs} ms`);
});
