import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Identity } from '../../model/entities.ts';
import { createModelTables, tables } from '../../model/entities.ts';
import type { EntityTable } from '../../store/entity-table.ts';
import type { ApiContext } from '../koa-state.ts';
import { identityCatalogue, identityIndexes } from './catalogues.ts';
import { sendTableList } from './route-kit.ts';

function identities(count: number): EntityTable<Identity> {
  const table = createModelTables().find((candidate) => candidate.name === tables.identities) as unknown as EntityTable<Identity>;
  const at = '2026-01-01T00:00:00.000Z';
  for (let i = 0; i < count; i++) {
    table.put({ id: `id-${i}`, name: `name-${(i * 7919) % count}`, typeId: 'User', isAdmin: false, isDefaultAdmin: false, authPolicyId: 'default', externalId: null, roleAttributes: [], tags: {}, createdAt: at, updatedAt: at } as unknown as Identity);
  }
  return table;
}

/** What sendTableList reads and writes of a Koa context; `res` says whether the request was answered or left. */
function context(query: Record<string, string>, res: { headersSent: boolean; writableEnded: boolean; destroyed: boolean }) {
  const ctx = { query, res, status: 404, body: undefined as unknown, set: () => undefined };
  return ctx as typeof ctx & ApiContext;
}

test('a list waiting for its index answers from it once built; one whose request was answered meanwhile stops and reads nothing', async () => {
  const table = identities(120_000);
  const view = (row: Identity) => row.name;
  const answered = context({ sort: 'name', limit: '3' }, { headersSent: true, writableEnded: true, destroyed: false });
  await sendTableList(answered, table, identityIndexes, identityCatalogue, view);
  assert.equal(answered.body, undefined, 'a request its deadline answered gets no list');

  const left = context({ filter: 'name contains "name-11"', limit: '3' }, { headersSent: false, writableEnded: false, destroyed: true });
  await sendTableList(left, table, identityIndexes, identityCatalogue, view);
  assert.equal(left.body, undefined, 'a request whose client left gets no list');

  const waiting = context({ sort: 'name', limit: '3' }, { headersSent: false, writableEnded: false, destroyed: false });
  await sendTableList(waiting, table, identityIndexes, identityCatalogue, view);
  assert.equal(waiting.status, 200);
  assert.deepEqual(JSON.parse(waiting.body as string).data, ['name-0', 'name-1', 'name-10']);
});
