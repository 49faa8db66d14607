// Every command family reaches its own applier through the table, and a type of no family (or an unknown type of a
// known one) is refused without changing anything, as a proposer sees it through the raft log.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { ApplyResult } from '../raft/state-machine.ts';
import { ModelStore } from '../store/model-store.ts';
import type { ModelCommand } from './commands.ts';
import { tables, type Identity } from './entities.ts';
import { openTestModel } from './model-test-harness.ts';

let store: ModelStore;
let propose: (command: unknown) => Promise<{ index: number; result: ApplyResult }>;

before(async () => {
  const model = await openTestModel({ prefix: 'edgeward-command-table-' });
  store = model.store;
  propose = (command) => model.node.propose(command as ModelCommand);
});

const at = '2026-01-01T00:00:00.000Z';
const identity: Identity = {
  id: 'id-1', createdAt: at, updatedAt: at, tags: {}, name: 'one', typeId: 'Default', isAdmin: false, isDefaultAdmin: false,
  authPolicyId: 'default', externalId: null, roleAttributes: [], disabledAt: null, disabledUntil: null,
};

const outcome = (result: ApplyResult) => (result.ok ? { ok: result.value } : { code: result.error.code, cause: result.error.cause });

test('each command family is applied by its own applier', async () => {
  const cases: Array<[command: Record<string, unknown>, expected: unknown]> = [
    [{ type: 'identity.create', identity }, { ok: { id: 'id-1' } }],
    [{ type: 'identity.disable', id: 'id-1', at, until: null }, { ok: undefined }],
    [{ type: 'authenticator.delete', id: 'a-x' }, { code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: 'authenticator with id a-x not found' } }],
    [{ type: 'authPolicy.delete', id: 'default' }, { code: 'ENTITY_CAN_NOT_BE_DELETED', cause: { code: 'ENTITY_CAN_NOT_BE_DELETED', message: 'the default auth policy can not be deleted' } }],
    [{ type: 'extJwtSigner.delete', id: 's-x' }, { code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: 'external jwt signer with id s-x not found' } }],
    [{ type: 'ca.verify', id: 'ca-x', at }, { code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: 'ca with id ca-x not found' } }],
    [{ type: 'enrollment.complete', id: 'e-x', token: 't', at, authenticator: {} }, { code: 'INVALID_ENROLLMENT_TOKEN', cause: { field: 'token', reason: 'the enrollment token is unknown or already used' } }],
    [{ type: 'apiSession.delete', ids: ['gone'], reason: 'logout' }, { ok: { deleted: 0 } }],
    [{ type: 'mfa.failed', identityId: 'id-1', at, maxAttempts: 3, lockoutMinutes: 0 }, { ok: { locked: false } }],
    [{ type: 'raft.noop' }, { ok: undefined }],
  ];
  for (const [command, expected] of cases) assert.deepEqual(outcome((await propose(command)).result), expected, String(command.type));
  assert.equal(store.table<Identity>(tables.identities).get('id-1')?.disabledAt, at, 'identity.disable applied');
  for (const type of ['service.delete', 'servicePolicy.delete', 'postureCheck.delete', 'configType.delete', 'edgeRouter.delete']) {
    const { result } = await propose({ type, id: 'missing', at });
    assert.equal(result.ok ? 'applied' : result.error.code, 'NOT_FOUND', type);
  }
});

test('a command type of no family, or unknown in its family, is refused and changes nothing', async () => {
  for (const type of ['identity.rename', 'raft.bogus', 'service.rename', 'nodot', 'constructor.create', '__proto__.create', 'hasOwnProperty.x', '.create']) {
    const before = store.appliedIndex();
    const { index, result } = await propose({ type, id: 'id-1', at });
    assert.deepEqual(outcome(result), { code: 'COULD_NOT_VALIDATE', cause: { field: 'type', reason: `unknown command ${type}` } }, type);
    assert.equal(index, before + 1, 'the entry still advances the applied index');
  }
  assert.ok(store.table<Identity>(tables.identities).get('id-1'), 'nothing deleted');
});
