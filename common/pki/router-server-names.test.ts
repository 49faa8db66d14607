import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createControllerCertificate } from './controller-certificate.ts';
import { initPki, type Pki } from './pki-directory.ts';
import { checkRouterServerNames, controllerNamesOf, maxRouterServerNames, type ControllerNames } from './router-server-names.ts';

let dir: string;
let pki: Pki;
let controllers: ControllerNames;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeward-router-names-'));
  pki = await initPki(dir, { trustDomain: 'edgeward.test' });
  const own = await createControllerCertificate(pki.intermediate, { id: 'c1', trustDomain: 'edgeward.test', dnsNames: ['ctrl1.example.test', 'localhost', '*.ctrl.example.test'], ipAddresses: ['192.0.2.10', '127.0.0.1', '2001:db8::10'] });
  const peer = await createControllerCertificate(pki.intermediate, { id: 'c2', trustDomain: 'edgeward.test', dnsNames: ['ctrl2.example.test'], ipAddresses: [] });
  controllers = controllerNamesOf({
    certificates: [own.certPem, peer.chainPem, 'not a certificate'],
    addresses: ['tls:ctrl3.example.test:6262', 'tls:[2001:db8::30]:6262', 'https://api.example.test:443', 'https://198.51.100.7:1280', 'https://0.0.0.0:1280'],
  });
});
after(() => rm(dir, { recursive: true, force: true }));

const refusal = (dnsNames: string[], ipAddresses: string[] = []) => {
  const check = checkRouterServerNames({ dnsNames, ipAddresses }, controllers);
  return check.ok ? 'granted' : check.reason;
};

test("a router's own names are granted, normalised, and claimed unless they are loopback names", () => {
  const check = checkRouterServerNames({ dnsNames: ['Router1.Example.test', 'router1.example.test', 'localhost', 'r.localhost'], ipAddresses: ['203.0.113.5', '127.0.0.1', '::1', '::ffff:203.0.113.6'] }, controllers);
  assert.deepEqual(check, {
    ok: true,
    dnsNames: ['router1.example.test', 'localhost', 'r.localhost'],
    ipAddresses: ['203.0.113.5', '127.0.0.1', '::1', '::ffff:cb00:7106'],
    claimed: ['DNS:router1.example.test', 'IP:203.0.113.5', 'IP:203.0.113.6'],
  });
});

test("a controller's names are refused, wherever they were found, naming where", () => {
  assert.equal(refusal(['CTRL1.example.test']), '"ctrl1.example.test" belongs to a controller (on a controller certificate)');
  assert.equal(refusal(['ctrl2.example.test']), '"ctrl2.example.test" belongs to a controller (on a controller certificate)');
  assert.equal(refusal(['eu.ctrl.example.test']), '"eu.ctrl.example.test" belongs to a controller (under the controller certificate name *.ctrl.example.test)');
  assert.equal(refusal(['ctrl3.example.test']), `"ctrl3.example.test" belongs to a controller (a controller's control address)`);
  assert.equal(refusal(['api.example.test']), `"api.example.test" belongs to a controller (a controller's web address)`);
  assert.equal(refusal([], ['192.0.2.10']), '"192.0.2.10" belongs to a controller (on a controller certificate)');
  assert.equal(refusal([], ['::ffff:192.0.2.10']), '"::ffff:c000:20a" belongs to a controller (on a controller certificate)');
  assert.equal(refusal([], ['2001:0db8:0:0::10']), '"2001:db8::10" belongs to a controller (on a controller certificate)');
  assert.equal(refusal([], ['2001:db8::30']), `"2001:db8::30" belongs to a controller (a controller's control address)`);
  assert.equal(refusal([], ['198.51.100.7']), `"198.51.100.7" belongs to a controller (a controller's web address)`);
  assert.equal(refusal(['ctrl.example.test', 'deep.eu.ctrl.example.test']), 'granted', 'a wildcard covers one label only');
});

test('wildcards, addresses no host is reached at, invalid names and too many names are refused', () => {
  assert.equal(refusal(['*.routers.example.test']), '"*.routers.example.test" is a wildcard: a router\'s server certificate names its own host only');
  assert.equal(refusal([], ['0.0.0.0']), '"0.0.0.0" is an unspecified ("this network") address: no router is reached at it');
  assert.equal(refusal([], ['::']), '"::" is the unspecified address: no router is reached at it');
  assert.equal(refusal([], ['239.1.2.3']), '"239.1.2.3" is a multicast address: no router is reached at it');
  assert.equal(refusal([], ['255.255.255.255']), '"255.255.255.255" is a reserved or broadcast address: no router is reached at it');
  assert.equal(refusal([], ['ff02::1']), '"ff02::1" is a multicast address: no router is reached at it');
  assert.match(refusal(['bad_name.example.test']), /^invalid DNS name "bad_name\.example\.test"/);
  assert.deepEqual(checkRouterServerNames({ dnsNames: ['router.example.test', 'ctrl2.example.test'], ipAddresses: [] }, controllers), {
    ok: false,
    name: 'ctrl2.example.test',
    reason: '"ctrl2.example.test" belongs to a controller (on a controller certificate)',
  });
  const many = Array.from({ length: maxRouterServerNames + 1 }, (_, i) => `r${i}.example.test`);
  assert.equal(refusal(many), `the certificate request asks for 33 names; a router's server certificate may carry at most ${maxRouterServerNames}`);
  assert.equal(refusal(many.slice(1)), 'granted');
});
