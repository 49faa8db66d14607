import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RouterCircuitReport } from '../../common/control-channel/control-messages.ts';
import { CircuitReportQueue } from './circuit-report-queue.ts';

const report = (circuitId: string): RouterCircuitReport => ({ type: 'router.circuit', event: 'created', circuitId, serviceId: 's', clientId: 'r1', terminatorId: 't', routers: ['r1'], links: [] });

test('reports wait while the channel is down and go out in order once it is up; the oldest go when it is full', () => {
  let up = true;
  const sent: string[] = [];
  const queue = new CircuitReportQueue(2, (item) => (up ? (sent.push(item.circuitId), true) : false));
  queue.offer(report('a'));
  assert.deepEqual(sent, ['a']);
  up = false;
  for (const id of ['b', 'c', 'd']) queue.offer(report(id));
  assert.equal(queue.size, 2);
  assert.equal(queue.dropped, 1);
  up = true;
  queue.offer(report('e'));
  assert.deepEqual(sent, ['a', 'c', 'd', 'e'], 'what waited goes first, in order');
  assert.equal(queue.size, 0);
  up = false;
  queue.offer(report('f'));
  up = true;
  queue.flush();
  assert.deepEqual(sent.at(-1), 'f');
});
