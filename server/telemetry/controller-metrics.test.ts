import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ControllerMetrics } from './controller-metrics.ts';

async function scrape(metrics: ControllerMetrics): Promise<string> {
  const server = createServer((req, res) => metrics.serve(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<string>((resolve, reject) => {
      request(`http://127.0.0.1:${port}/metrics`, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve(text));
      })
        .on('error', reject)
        .end();
    });
  } finally {
    server.close();
  }
}

test('router gauges are exposed with router_id beside the controller metrics, and a series no longer observed goes away', async () => {
  const metrics = new ControllerMetrics({ controllerId: 'c1', appliedIndex: () => 7, apiSessionCount: () => 0, isLeader: () => true });
  try {
    let series = [
      { value: 2, attributes: { router_id: 'r1' } },
      { value: 5, attributes: { router_id: 'r2' } },
    ];
    metrics.routerGauge('router.link.count', () => series);
    metrics.routerGauge('router.link.count', () => [{ value: 99, attributes: { router_id: 'ignored' } }]);
    const first = await scrape(metrics);
    assert.match(first, /edgeward_raft_applied_index 7/);
    assert.match(first, /# TYPE edgeward_router_link_count gauge/);
    assert.match(first, /edgeward_router_link_count\{router_id="r1"\} 2/);
    assert.match(first, /edgeward_router_link_count\{router_id="r2"\} 5/);
    assert.doesNotMatch(first, /ignored/, 'a name is registered once');
    series = [{ value: 3, attributes: { router_id: 'r1' } }];
    const second = await scrape(metrics);
    assert.match(second, /edgeward_router_link_count\{router_id="r1"\} 3/);
    assert.doesNotMatch(second, /router_id="r2"/, 'a dropped router leaves the exposition');
    assert.match(await scrape(metrics), /edgeward_router_link_count\{router_id="r1"\} 3/, 'a value stays while observed');
  } finally {
    await metrics.close();
  }
});
