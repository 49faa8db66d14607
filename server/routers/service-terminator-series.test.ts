import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import { serviceTerminatorSeries } from './service-terminator-series.ts';

const terminator = (serviceId: string, binding: string, routerId: string): TerminatorRecord => ({
  id: `${serviceId}-${routerId}`,
  serviceId,
  routerId,
  binding,
  address: 'tcp:127.0.0.1:1',
  identity: routerId,
  cost: 0,
  precedence: 'default',
  createdAt: '',
  updatedAt: '',
  controllerId: 'c1',
});

test('terminators are counted per service and binding; every service has an edge series, 0 without SDK hosts; unknown services are left out', () => {
  const series = serviceTerminatorSeries(
    [
      { id: 's1', name: 'web' },
      { id: 's2', name: 'db' },
    ],
    [terminator('s1', 'edge', 'r1'), terminator('s1', 'edge', 'r2'), terminator('s1', 'tunnel', 'r1'), terminator('gone', 'edge', 'r1')],
  );
  assert.deepEqual(series, [
    { value: 2, attributes: { service_id: 's1', service_name: 'web', binding: 'edge' } },
    { value: 0, attributes: { service_id: 's2', service_name: 'db', binding: 'edge' } },
    { value: 1, attributes: { service_id: 's1', service_name: 'web', binding: 'tunnel' } },
  ]);
});
