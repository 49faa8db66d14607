import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatTunnelService,
  parseBareAdvertise,
  parseCidr,
  parseDnsSan,
  parseEmailSan,
  parseIpSan,
  parseLinkAdvertise,
  parseResolverUrl,
  parseTunnelService,
  parseUriSan,
  sansCover,
} from './router-value-formats.ts';

describe('router value formats', () => {
  it('link advertise: with a protocol, or bare (taking the bind protocol later), IPv6 in brackets', () => {
    assert.deepEqual(parseLinkAdvertise('tls:router1.example.com:6000'), { ok: true, value: { protocol: 'tls', host: 'router1.example.com', port: 6000 } });
    assert.deepEqual(parseLinkAdvertise('[2001:db8::1]:6000'), { ok: true, value: { host: '2001:db8::1', port: 6000 } });
    assert.deepEqual(parseLinkAdvertise('tls:[::1]:6000'), { ok: true, value: { protocol: 'tls', host: '::1', port: 6000 } });
    assert.deepEqual(parseLinkAdvertise('http:host:80'), { ok: false, message: 'protocol "http" is not allowed here (allowed: tls, tcp, udp, dtls, ws, wss, transwarp, transwarptls)' });
  });

  it('edge advertise: <host>:<port> only, saying so when a protocol is given', () => {
    assert.deepEqual(parseBareAdvertise('router.example.com:3022'), { ok: true, value: { host: 'router.example.com', port: 3022 } });
    assert.deepEqual(parseBareAdvertise('[2001:db8::7]:3022'), { ok: true, value: { host: '2001:db8::7', port: 3022 } });
    assert.deepEqual(parseBareAdvertise('tls:[::1]:3022'), { ok: false, message: 'is <host>:<port> without a protocol, e.g. [::1]:3022' });
    assert.equal(parseBareAdvertise('router.example.com').ok, false);
  });

  it('tunnel services: <service>:<port>[:tcp|:udp], names may hold colons, and format back', () => {
    assert.deepEqual(parseTunnelService('web:8080'), { ok: true, value: { service: 'web', port: 8080, protocol: 'tcp' } });
    assert.deepEqual(parseTunnelService('dns:53:udp'), { ok: true, value: { service: 'dns', port: 53, protocol: 'udp' } });
    assert.deepEqual(parseTunnelService('a:b:22:tcp'), { ok: true, value: { service: 'a:b', port: 22, protocol: 'tcp' } });
    for (const bad of ['web', ':80', 'web:http', 'web:0', 'web:65536', 'udp']) assert.equal(parseTunnelService(bad).ok, false, bad);
    assert.equal(formatTunnelService({ service: 'dns', port: 53, protocol: 'udp' }), 'dns:53:udp');
    assert.equal(formatTunnelService({ service: 'web', port: 80, protocol: 'tcp' }), 'web:80');
  });

  it('resolver: udp://<host>:<port>; range: CIDR with a prefix that fits the family', () => {
    assert.deepEqual(parseResolverUrl('udp://127.0.0.1:53'), { ok: true, value: 'udp://127.0.0.1:53' });
    assert.equal(parseResolverUrl('udp://[::1]:53').ok, true);
    for (const bad of ['127.0.0.1:53', 'tcp://127.0.0.1:53', 'udp://127.0.0.1', 'udp://::1:53']) assert.equal(parseResolverUrl(bad).ok, false, bad);
    assert.equal(parseCidr('100.64.0.1/10').ok, true);
    assert.equal(parseCidr('fd00::/64').ok, true);
    for (const bad of ['100.64.0.1', '100.64.0.1/33', 'fd00::/129', 'host/8', '10.0.0.0/x']) assert.equal(parseCidr(bad).ok, false, bad);
  });

  it('SANs: DNS names (with a leading wildcard), IPs, e-mail addresses and URIs', () => {
    for (const good of ['localhost', 'router1.example.com', '*.example.com', 'ziti-dev-ingress01']) assert.equal(parseDnsSan(good).ok, true, good);
    for (const bad of ['bad host', 'a.*.com', '-x.com', '']) assert.equal(parseDnsSan(bad).ok, false, bad);
    assert.equal(parseIpSan('::1').ok && parseIpSan('127.0.0.1').ok, true);
    assert.equal(parseIpSan('300.1.1.1').ok, false);
    assert.equal(parseEmailSan('admin@example.com').ok, true);
    assert.equal(parseEmailSan('admin').ok, false);
    assert.equal(parseUriSan('ziti://ziti-dev-router01/made/up/example').ok, true);
    assert.equal(parseUriSan('no scheme').ok, false);
  });

  it('a certificate covers a host named exactly, by a one-label wildcard, or by IP', () => {
    const sans = { dns: ['router.example.com', '*.edge.example.com'], ip: ['10.0.0.1'] };
    assert.equal(sansCover(sans, 'ROUTER.example.com'), true);
    assert.equal(sansCover(sans, 'r1.edge.example.com'), true);
    assert.equal(sansCover(sans, 'a.r1.edge.example.com'), false);
    assert.equal(sansCover(sans, 'edge.example.com'), false);
    assert.equal(sansCover(sans, '10.0.0.1'), true);
    assert.equal(sansCover(sans, '10.0.0.2'), false);
  });
});
