import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRouterConfig } from '../config/router-config.ts';
import type { RouterConfig } from '../config/router-config.ts';
import { dialerLogFields, listenerLogFields, supportedProtocolsOf } from './configured-listeners.ts';

function config(lines: readonly string[]): RouterConfig {
  const text = ['v: 3', 'identity: {cert: c.pem, key: k.pem}', 'ctrl: {endpoint: "tls:ctrl.example:6262"}', ...lines].join('\n');
  const parsed = parseRouterConfig(text, { file: '/etc/router/router.yml', env: {} });
  assert.ok(parsed.config, JSON.stringify(parsed.problems));
  return parsed.config;
}

const listeners = config([
  'dialers: [{binding: transport}, {binding: proxy_udp, options: {mtu: 1400}}]',
  'listeners:',
  '  - binding: edge',
  '    address: tls:0.0.0.0:3022',
  '    options: {advertise: router1.example:3022, connectTimeoutMs: 5000}',
  '  - binding: edge',
  '    address: wss:[::]:3023',
  '    advertise: "[2001:db8::7]:3023"',
  '  - binding: edge',
  '    address: tls:0.0.0.0:3024',
  '    advertise: router1.example:3024',
  '  - binding: edge',
  '    address: tcp:0.0.0.0:3025',
  '  - binding: tunnel',
  '    options: {mode: tproxy, lanIf: eth0}',
  '  - binding: transport',
  '    address: tls:0.0.0.0:7099',
]);

describe('configured listeners', () => {
  it('reports each edge listener as protocol → advertise URL, as OpenZiti edge routers do', () => {
    assert.deepEqual(supportedProtocolsOf(listeners.listeners ?? []), {
      protocols: { tls: 'tls://router1.example:3022', wss: 'wss://[2001:db8::7]:3023' },
      skipped: [
        { index: 2, reason: 'an earlier edge listener already reports protocol tls' },
        { index: 3, reason: 'no advertise address: SDKs would not know where to connect' },
      ],
    });
    assert.deepEqual(supportedProtocolsOf([]), { protocols: {}, skipped: [] }, 'none: an empty object');
  });

  it('gives each listener and dialer binding as it is logged at start', () => {
    const fields = listenerLogFields(listeners.listeners ?? []);
    assert.deepEqual(fields[0], { index: 0, binding: 'edge', bind: 'tls:0.0.0.0:3022', advertise: 'router1.example:3022', options: { connectTimeoutMs: 5000 } });
    assert.deepEqual(fields[3], { index: 3, binding: 'edge', bind: 'tcp:0.0.0.0:3025', advertise: null, options: {} });
    assert.deepEqual(fields[4], { index: 4, binding: 'tunnel', mode: 'tproxy', options: { resolver: 'udp://127.0.0.1:53', dnsSvcIpRange: '100.64.0.1/10', lanIf: 'eth0' } });
    assert.deepEqual(fields[5], { index: 5, binding: 'transport', bind: 'tls:0.0.0.0:7099', advertise: null, options: {} });
    assert.deepEqual(dialerLogFields(listeners), [
      { index: 0, binding: 'transport', options: {} },
      { index: 1, binding: 'proxy_udp', options: { mtu: 1400 } },
    ]);
  });
});
