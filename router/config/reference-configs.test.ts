// Real router files from openziti/ziti and openziti/ziti-doc must load (warnings allowed: they carry keys edgeward
// does not use), the stale one must fail with a message that says why, and each effective config must parse back
// to the same config.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRouterConfig } from './router-config.ts';
import { renderEffectiveConfig } from './effective-config.ts';

// Copies of the shared reference folder's files (testdata/reference-configs/README.md says where they come from).
const dir = new URL('./testdata/reference-configs/', import.meta.url).pathname;
// The variables the openziti/ziti:etc templates use.
const env = { ZITI_DATA: '/var/lib/ziti', CONTROLLER_HOST: 'ctrl.example.com', CONTROLLER_PORT: '6262', LINK_LISTENER_PORT: '6000', ZITI_EDGE_PORT: '3022' };
const files = readdirSync(dir).filter((name) => name.endsWith('.yml')).sort();

function load(name: string) {
  return parseRouterConfig(readFileSync(join(dir, name), 'utf8'), { file: join(dir, name), env });
}

describe('reference router configs', () => {
  it('finds the reference files', () => {
    assert.ok(files.length >= 14, `only ${files.length} files in ${dir}`);
  });

  for (const name of files.filter((file) => !file.startsWith('stale-'))) {
    it(`${name} loads with no errors, and its effective config parses back to the same config`, () => {
      const { config, problems } = load(name);
      assert.deepEqual(problems.filter((p) => p.severity === 'error'), []);
      assert.ok(config);
      const again = parseRouterConfig(renderEffectiveConfig(config), { file: join(dir, name), env: {} });
      assert.deepEqual(again.problems.filter((p) => p.severity === 'error'), []);
      assert.deepEqual(again.config, config);
    });
  }

  it('stale-etc-edge-router-wss.yml fails: edge_wss is no listener binding, and edge has no edge listener', () => {
    const { config, problems } = load('stale-etc-edge-router-wss.yml');
    assert.equal(config, undefined);
    assert.deepEqual(
      problems.filter((p) => p.severity === 'error').map((p) => [p.line, p.path, p.rule, p.message]),
      [
        [44, 'edge', 'edge-listener-required', 'an edge section needs a listener with binding "edge" and an address (listeners: [{binding: edge, address: tls:0.0.0.0:3022}]) for SDKs to connect to'],
        [84, 'listeners[0].binding', 'unknown-type', 'unknown listener binding "edge_wss"; known: edge, edge_transport, tunnel, transport, transport_udp, proxy, proxy_udp'],
      ],
    );
    assert.ok(problems.some((p) => p.path === 'edge.underlay_type' && p.severity === 'warning'));
  });

  it('reads what the files say: endpoints, link policy overrides, tunnel modes, web health checks', () => {
    const links = load('fablab-links-test-endpoints.yml').config;
    assert.deepEqual(links?.ctrl.endpoints, [{ protocol: 'tls', host: '198.51.100.10', port: 6262 }]);
    assert.equal(links?.ctrl.endpointsFile, '/home/ubuntu/fablab/cfg/router-links-1.endpoints');
    assert.deepEqual(links?.link?.dialers[0]?.healthyDialBackoff, { minRetryInterval: 5000, maxRetryInterval: 60_000, retryBackoffFactor: 1.5 });

    const tproxy = load('doc-linux-private-tproxy-router.yml').config;
    assert.deepEqual(tproxy?.listeners?.[1], { binding: 'tunnel', options: { mode: 'tproxy', resolver: 'udp://127.0.0.1:53', dnsSvcIpRange: '100.64.0.1/10' } });
    assert.equal(tproxy?.forwarder.latencyProbeInterval, 0);

    const proxy = load('test-ats-tunneler-proxy.yml').config;
    assert.deepEqual(proxy?.listeners?.[0], {
      binding: 'tunnel',
      options: { mode: 'proxy', services: [{ service: 'tunnel-test-tcp', port: 8686, protocol: 'tcp' }, { service: 'tunnel-test-udp', port: 8688, protocol: 'udp' }] },
    });

    const etc = load('etc-edge-router.yml').config;
    assert.deepEqual(etc?.web?.[0]?.apis, [{ binding: 'health-checks', options: {} }]);
    assert.deepEqual(etc?.healthChecks.linkCheck, { interval: 5000, initialDelay: 5000, minLinks: 1 });
    assert.equal(etc?.metrics.reportInterval, 15_000);
    assert.equal(etc?.identity.cert, '/var/lib/ziti/edge-router-client.cert.pem');
    assert.equal(etc?.edge?.db, join(dir, 'etc-edge-router.yml.proto.gzip'));

    const envvars = load('etc-tmpl-edge-router-envvars.yml').config;
    assert.deepEqual(envvars?.ctrl.endpoints, [{ protocol: 'tls', host: 'ctrl.example.com', port: 6262 }]);
    assert.deepEqual(envvars?.listeners?.[1], {
      binding: 'edge',
      bind: { protocol: 'tls', host: '0.0.0.0', port: 3022 },
      advertise: { host: '127.0.0.1', port: 3022 },
      options: { lookupApiSessionTimeout: '5s', lookupSessionTimeout: '5s' },
    });

    const privateCtrl = load('fablab-private-ctrl-listener.yml');
    assert.deepEqual(privateCtrl.config?.ctrl.endpoints, []);
    assert.ok(privateCtrl.problems.some((p) => p.rule === 'no-endpoints' && p.severity === 'warning'));
  });

  it('states the consequence of each missing section in the files that lack one', () => {
    const consequences = (name: string) => load(name).problems.filter((p) => p.rule === 'missing-section').map((p) => p.path);
    assert.deepEqual(consequences('test-ats-fabric-router.yml'), ['edge', 'listeners']);
    assert.deepEqual(consequences('test-ats-transit-router.yml'), ['edge', 'link']);
    assert.deepEqual(consequences('doc-linux-public-router.yml'), ['dialers']);
    assert.deepEqual(consequences('etc-edge-router.yml'), []);
  });
});
