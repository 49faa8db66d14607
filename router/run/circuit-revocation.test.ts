import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../common/log/logger.ts';
import { CircuitRevocation, readCircuitClose } from './circuit-revocation.ts';

function recordingCloser() {
  const calls: Array<{ ids: string[] | 'all'; reason: string }> = [];
  return {
    calls,
    closeCircuits(ids: Iterable<string> | 'all', reason: string) {
      calls.push({ ids: ids === 'all' ? 'all' : [...ids], reason });
      return ids === 'all' ? 3 : [...ids].length;
    },
  };
}

test('a circuit close names circuits, a known code and a reason; anything else is refused', () => {
  assert.deepEqual(readCircuitClose({ type: 'ctrl.circuitClose', circuitIds: ['a', 'b'], code: 'SESSION_REVOKED', reason: 'logout' }), {
    circuitIds: ['a', 'b'],
    code: 'SESSION_REVOKED',
    reason: 'logout',
  });
  assert.equal(readCircuitClose({ circuitIds: 'a', code: 'SESSION_REVOKED', reason: '' }), undefined);
  assert.equal(readCircuitClose({ circuitIds: [''], code: 'SESSION_REVOKED', reason: '' }), undefined);
  assert.equal(readCircuitClose({ circuitIds: ['a'], code: 'WHATEVER', reason: '' }), undefined);
  assert.equal(readCircuitClose({ circuitIds: Array.from({ length: 1001 }, (_, i) => `c${i}`), code: 'ACCESS_REVOKED', reason: '' }), undefined);
  assert.equal(readCircuitClose(null), undefined);
});

test('the named circuits close with the code in the reason; a malformed message closes nothing; a revoked router closes all', () => {
  const closer = recordingCloser();
  const revocation = new CircuitRevocation(closer, silentLogger);
  revocation.circuitClose({ type: 'ctrl.circuitClose', circuitIds: ['c1'], code: 'ACCESS_REVOKED', reason: 'no Dial policy any more' });
  revocation.circuitClose({ type: 'ctrl.circuitClose', circuitIds: 'c2', code: 'ACCESS_REVOKED' });
  revocation.routerRevoked('edge router r1 is disabled');
  assert.deepEqual(closer.calls, [
    { ids: ['c1'], reason: 'revoked by the controller: ACCESS_REVOKED: no Dial policy any more' },
    { ids: 'all', reason: 'this router was revoked: edge router r1 is disabled' },
  ]);
});
