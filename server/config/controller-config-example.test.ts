import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { controllerConfigExample, parseControllerConfig } from './controller-config.ts';

const file = '/srv/edgeward/ctrl1/ctrl.yml';
const pkiPaths = { cert: '/srv/pki/ctrl1.chain.pem', key: '/srv/pki/ctrl1.key.pem', ca: '/srv/pki/ca-bundle.pem' };

describe('controllerConfigExample', () => {
  it('parses with no problems and every default filled', () => {
    const yaml = controllerConfigExample({ id: 'ctrl1', dataDir: './data', pkiPaths, webAddress: '127.0.0.1:1280', ctrlAddress: 'tls:127.0.0.1:6262' });
    const { config, problems } = parseControllerConfig(yaml, { file, env: {} });
    assert.deepEqual(problems, []);
    assert.ok(config);
    assert.equal(config.cluster.dataDir, '/srv/edgeward/ctrl1/data');
    assert.equal(config.identity.server_cert, pkiPaths.cert);
    assert.deepEqual(config.ctrl.listener, { protocol: 'tls', host: '127.0.0.1', port: 6262 });
    assert.deepEqual(config.web[0]!.bindPoints, [{ interface: { host: '127.0.0.1', port: 1280 }, address: { host: '127.0.0.1', port: 1280 } }]);
    assert.deepEqual(config.web[0]!.apis.map((api) => api.binding), ['edge-client', 'edge-management', 'health-checks', 'metrics']);
    assert.deepEqual(config.events, {});
    assert.deepEqual(config.log, { level: 'info' });
    assert.equal(config.agent.socket, '/srv/edgeward/ctrl1/data/agent.sock');
  });

  it('writes the same values a file without those keys gets by default', () => {
    const yaml = controllerConfigExample({ id: 'ctrl1', dataDir: '/data', pkiPaths, webAddress: '127.0.0.1:1280', ctrlAddress: 'tls:127.0.0.1:6262' });
    const bare = [
      'v: 3',
      `identity: { cert: ${pkiPaths.cert}, key: ${pkiPaths.key}, ca: ${pkiPaths.ca} }`,
      'ctrl: { listener: "tls:127.0.0.1:6262" }',
      'cluster: { dataDir: /data }',
      'web:',
      '  - name: client-management',
      '    bindPoints: [ { interface: "127.0.0.1:1280", address: "127.0.0.1:1280" } ]',
      '    apis: [ { binding: edge-client }, { binding: edge-management }, { binding: health-checks }, { binding: metrics } ]',
    ].join('\n');
    assert.deepEqual(parseControllerConfig(yaml, { file, env: {} }).config, parseControllerConfig(bare, { file, env: {} }).config);
  });

  it('takes the certificates as identity too, with events, log file, agent socket and server certificate', () => {
    const yaml = controllerConfigExample({
      id: 'ctrl-test',
      dataDir: '/tmp/x/data',
      identity: { ...pkiPaths, serverCert: '/srv/pki/server.pem', serverKey: '/srv/pki/server.key' },
      webAddress: '0.0.0.0:1280',
      webAdvertiseAddress: 'ctrl.example.com:1280',
      ctrlAddress: '127.0.0.1:6262',
      eventsFile: '/tmp/x/events.jsonl',
      logFile: '/tmp/x/controller.log',
      agentSocket: '/tmp/x/agent.sock',
    });
    const { config, problems } = parseControllerConfig(yaml, { file, env: {} });
    assert.deepEqual(problems, []);
    assert.ok(config);
    assert.equal(config.identity.server_cert, '/srv/pki/server.pem');
    assert.equal(config.identity.server_key, '/srv/pki/server.key');
    assert.deepEqual(config.ctrl.listener, { protocol: 'tls', host: '127.0.0.1', port: 6262 }, 'a bare host:port gets tls:');
    assert.deepEqual(config.web[0]!.bindPoints[0]!.address, { host: 'ctrl.example.com', port: 1280 });
    assert.equal(config.log.file, '/tmp/x/controller.log');
    assert.equal(config.agent.socket, '/tmp/x/agent.sock');
    assert.deepEqual(Object.keys(config.events), ['jsonLogger']);
    const logger = config.events['jsonLogger']!;
    assert.deepEqual(logger.handler, { type: 'file', format: 'json', path: '/tmp/x/events.jsonl', maxsizemb: 10, maxbackups: 0, bufferSize: 10 });
    assert.deepEqual(logger.subscriptions.map((subscription) => subscription.type), ['cluster', 'entityChange', 'apiSession', 'authentication', 'circuit']);
    const entityChange = logger.subscriptions.find((subscription) => subscription.type === 'entityChange');
    assert.equal(entityChange && 'propagateAlways' in entityChange && entityChange.propagateAlways, false, 'only the leader writes entity changes by default');
  });

  it('has every controller write the entity changes it applies when asked (the alerts daemon\'s commit lag)', () => {
    const yaml = controllerConfigExample({ id: 'c', dataDir: '/d', pkiPaths, webAddress: '127.0.0.1:1280', ctrlAddress: 'tls:127.0.0.1:6262', eventsFile: '/d/events.jsonl', entityChangesFromEveryController: true });
    const { config, problems } = parseControllerConfig(yaml, { file, env: {} });
    assert.deepEqual(problems, []);
    const subscriptions = config!.events['jsonLogger']!.subscriptions;
    assert.deepEqual(subscriptions.find((subscription) => subscription.type === 'entityChange'), { type: 'entityChange', propagateAlways: true, include: [] });
    assert.equal(subscriptions.find((subscription) => subscription.type === 'apiSession' && subscription.propagateAlways), undefined, 'API session events stay with the leader');
  });

  it('quotes paths that YAML would otherwise misread', () => {
    const odd = { cert: '/srv/my pki/#1: cert.pem', key: "/srv/it's/key.pem", ca: 'C:\\pki\\ca.pem' };
    const yaml = controllerConfigExample({ id: 'a "b"', dataDir: '/srv/data: [x]', pkiPaths: odd, webAddress: '127.0.0.1:1280', ctrlAddress: 'tls:127.0.0.1:6262' });
    const { config, problems } = parseControllerConfig(yaml, { file, env: {} });
    assert.deepEqual(problems, []);
    assert.equal(config?.identity.cert, odd.cert);
    assert.equal(config?.identity.key, odd.key);
    assert.equal(config?.cluster.dataDir, '/srv/data: [x]');
  });

  it('refuses inputs that cannot round-trip', () => {
    const base = { id: 'c', dataDir: '/d', pkiPaths, webAddress: '127.0.0.1:1280', ctrlAddress: 'tls:127.0.0.1:6262' };
    assert.throws(() => controllerConfigExample({ ...base, dataDir: '/d/$HOME' }), /contains "\$"/);
    assert.throws(() => controllerConfigExample({ ...base, ctrlAddress: 'tcp:127.0.0.1:6262' }), /is not tls:<host>:<port>/);
    assert.throws(() => controllerConfigExample({ ...base, webAddress: '127.0.0.1' }), /invalid config:\nexample:\d+: error: web\[0\]\.bindPoints\[0\]\.interface/);
  });
});
