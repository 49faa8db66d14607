import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRouterConfig } from '../../router/config/router-config.ts';
import { demoRouterConfig, demoRouterFiles, storedRouterPorts } from './demo-router-config.ts';

const files = demoRouterFiles('/data/router1');
const ports = { link: 4021, health: 8081, edge: 3022 };
const controllers = ['tls:127.0.0.1:6262', 'tls:127.0.0.1:6263', 'tls:127.0.0.1:6264'];
const text = demoRouterConfig('router1', files, ports, controllers);

test('the demo router config is a valid v3 file without a single warning', () => {
  const parsed = parseRouterConfig(text, { file: files.config, env: {} });
  assert.deepEqual(parsed.problems, []);
  assert.ok(parsed.config);
});

test('the demo router config names the three controllers, its link listener and dialer, its health API and its files', () => {
  const { config } = parseRouterConfig(text, { file: files.config, env: {} });
  assert.ok(config);
  assert.equal(config.v, 3);
  const { cert, server_cert, key, ca } = config.identity;
  assert.deepEqual({ cert, server_cert, key, ca }, { cert: '/data/router1/cert.pem', server_cert: '/data/router1/server-cert.pem', key: '/data/router1/key.pem', ca: '/data/router1/ca.pem' });
  assert.deepEqual(
    config.ctrl.endpoints.map((address) => `${address.protocol}:${address.host}:${address.port}`),
    controllers,
  );
  assert.equal(config.ctrl.endpointsFile, '/data/router1/endpoints');
  assert.equal(config.edge?.db, '/data/router1/router.yml.proto.gzip');
  assert.deepEqual(config.edge?.csr?.sans, { dns: ['localhost'], ip: ['127.0.0.1'], email: [], uri: [] });
  const [listener] = config.link?.listeners ?? [];
  assert.equal(config.link?.listeners.length, 1);
  assert.deepEqual([listener?.bind.host, listener?.bind.port, listener?.advertise.port, listener?.groups], ['127.0.0.1', 4021, 4021, ['default']]);
  assert.deepEqual(
    config.link?.dialers.map((dialer) => [dialer.binding, dialer.groups]),
    [['transport', ['default']]],
  );
  assert.deepEqual(
    config.web?.map((web) => [web.apis.map((api) => api.binding), web.bindPoints.map((point) => `${point.interface.host}:${point.interface.port}`)]),
    [[['health-checks'], ['127.0.0.1:8081']]],
  );
  assert.equal(config.metrics.reportInterval, 15_000);
  assert.equal(config.healthChecks.linkCheck.minLinks, 1);
  assert.ok(config.healthChecks.ctrlPingCheck.initialDelay <= 1000, 'controllerPing runs soon after start');
});

test('the ports written by an earlier start are read back; a file that cannot be read gives none', () => {
  assert.deepEqual(storedRouterPorts(text), ports);
  assert.deepEqual(storedRouterPorts(undefined), {});
  assert.deepEqual(storedRouterPorts('v: [3'), {});
  assert.deepEqual(storedRouterPorts('v: 3\nlink: nonsense\nweb: 12\n'), {});
});

test('router1 proxies the demo service on its proxy port and router2 hosts it: valid files, and the proxy port is read back', () => {
  const withProxy = { ...ports, proxy: 8480 };
  const proxying = demoRouterConfig('router1', files, withProxy, controllers, { mode: 'proxy', service: 'demo-echo' });
  const parsed = parseRouterConfig(proxying, { file: files.config, env: {} });
  assert.deepEqual(parsed.problems, []);
  const tunnel = parsed.config?.listeners?.find((listener) => listener.binding === 'tunnel');
  assert.deepEqual(tunnel?.options.mode, 'proxy');
  assert.deepEqual(tunnel?.options.services, [{ service: 'demo-echo', port: 8480, protocol: 'tcp' }]);
  assert.equal(tunnel?.options.bindAddress, '127.0.0.1');
  assert.deepEqual(storedRouterPorts(proxying), withProxy);

  const hosting = demoRouterConfig('router2', demoRouterFiles('/data/router2'), ports, controllers, { mode: 'host' });
  const host = parseRouterConfig(hosting, { file: '/data/router2/router.yml', env: {} });
  assert.deepEqual(host.problems, []);
  assert.deepEqual(host.config?.listeners?.find((listener) => listener.binding === 'tunnel')?.options.mode, 'host');
  assert.deepEqual(storedRouterPorts(hosting), ports, 'no proxy port for a hosting router');
});
