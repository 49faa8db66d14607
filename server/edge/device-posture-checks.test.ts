import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PostureData, PostureProcess } from '../model/posture-data.ts';
import type { PostureCheck } from '../model/service-entities.ts';
import { passesDeviceCheck } from './device-posture-checks.ts';

const at = '2026-01-01T00:00:00.000Z';
const base = { id: 'check-1', createdAt: at, updatedAt: at, tags: {}, name: 'c', roleAttributes: [], timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false, version: 1 };
const check = (fields: Partial<PostureCheck>): PostureCheck => ({ ...base, typeId: 'OS', ...fields });
const os = (type: string, version: string): PostureData => ({ os: { type, version, build: '', lastUpdatedAt: at } });
const proc = (fields: Partial<PostureProcess>): PostureProcess => ({ postureCheckId: 'check-1', path: '/usr/bin/agent', isRunning: true, binaryHash: 'ABC123', signerFingerprints: [], lastUpdatedAt: at, ...fields });

test('OS: the type matches without case; no versions means any; versions are ranges; the last entry for a type wins', () => {
  const windows = check({ operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041 <10.0.22000', '>=10.0.22621'] }, { type: 'Linux', versions: [] }] });
  assert.equal(passesDeviceCheck(windows, os('windows', '10.0.19045')), true);
  assert.equal(passesDeviceCheck(windows, os('Windows', '10.0.22000')), false, 'between the ranges');
  assert.equal(passesDeviceCheck(windows, os('Windows', '10.0.22631')), true);
  assert.equal(passesDeviceCheck(windows, os('Windows', '10.0')), false, 'not a full semantic version');
  assert.equal(passesDeviceCheck(windows, os('linux', 'anything at all')), true, 'no versions listed: any');
  assert.equal(passesDeviceCheck(windows, os('macOS', '14.0.0')), false, 'an OS not listed');
  assert.equal(passesDeviceCheck(windows, {}), false, 'no OS reported');
  assert.equal(passesDeviceCheck(windows, undefined), false, 'no posture data at all');
  const redeclared = check({ operatingSystems: [{ type: 'Linux', versions: [] }, { type: 'linux' as 'Linux', versions: ['>=6.0.0'] }] });
  assert.equal(passesDeviceCheck(redeclared, os('Linux', '5.15.0')), false, 'the second Linux entry wins');
});

test('MAC: passes when any reported address is listed, whatever the separators and case', () => {
  const mac = check({ typeId: 'MAC', macAddresses: ['AA:BB:CC:DD:EE:FF', '001122334455'] });
  const reported = (...addresses: string[]): PostureData => ({ mac: { addresses, lastUpdatedAt: at } });
  assert.equal(passesDeviceCheck(mac, reported('aabbccddeeff')), true);
  assert.equal(passesDeviceCheck(mac, reported('12:34:56:78:9a:bc', '00-11-22-33-44-55')), true);
  assert.equal(passesDeviceCheck(mac, reported('12:34:56:78:9a:bc')), false);
  assert.equal(passesDeviceCheck(mac, reported()), false);
  assert.equal(passesDeviceCheck(mac, {}), false);
});

test('DOMAIN: the reported domain is one listed, without case', () => {
  const domain = check({ typeId: 'DOMAIN', domains: ['corp.example', 'lab.example'] });
  assert.equal(passesDeviceCheck(domain, { domain: { domain: 'CORP.example', lastUpdatedAt: at } }), true);
  assert.equal(passesDeviceCheck(domain, { domain: { domain: 'evil.example', lastUpdatedAt: at } }), false);
  assert.equal(passesDeviceCheck(domain, { domain: { domain: '', lastUpdatedAt: at } }), false);
  assert.equal(passesDeviceCheck(domain, {}), false);
});

test('PROCESS: the response to this check says running, with a listed hash and the signer when they are set', () => {
  const plain = check({ typeId: 'PROCESS', process: { osType: 'Linux', path: '/usr/bin/agent', hashes: [] } });
  assert.equal(passesDeviceCheck(plain, { processes: [proc({})] }), true);
  assert.equal(passesDeviceCheck(plain, { processes: [proc({ isRunning: false })] }), false, 'not running');
  assert.equal(passesDeviceCheck(plain, { processes: [proc({ postureCheckId: 'other' })] }), false, 'a response to another check');
  assert.equal(passesDeviceCheck(plain, { processes: [] }), false);

  const hashed = check({ typeId: 'PROCESS', process: { osType: 'Linux', path: '/usr/bin/agent', hashes: ['ffff', 'abc123'] } });
  assert.equal(passesDeviceCheck(hashed, { processes: [proc({})] }), true, 'hashes compare without case');
  assert.equal(passesDeviceCheck(hashed, { processes: [proc({ binaryHash: 'dead' })] }), false);

  const signed = check({ typeId: 'PROCESS', process: { osType: 'Windows', path: 'C:\\agent.exe', hashes: [], signerFingerprint: 'F00D' } });
  assert.equal(passesDeviceCheck(signed, { processes: [proc({ signerFingerprints: ['beef', 'f00d'] })] }), true);
  assert.equal(passesDeviceCheck(signed, { processes: [proc({ signerFingerprints: ['beef'] })] }), false);
  assert.equal(passesDeviceCheck(signed, { processes: [proc({ signerFingerprints: [] })] }), false);
});

test('PROCESS_MULTI: AllOf needs every process to meet its criteria, AnyOf one; responses are found by path', () => {
  const processes = [
    { osType: 'Linux' as const, path: '/a', hashes: ['h1'], signerFingerprints: [] },
    { osType: 'Linux' as const, path: '/b', hashes: [], signerFingerprints: ['s1', 's2'] },
  ];
  const allOf = check({ typeId: 'PROCESS_MULTI', semantic: 'AllOf', processes });
  const anyOf = check({ typeId: 'PROCESS_MULTI', semantic: 'AnyOf', processes });
  const a = proc({ path: '/a', binaryHash: 'H1' });
  const b = proc({ path: '/b', binaryHash: 'x', signerFingerprints: ['S2'] });
  assert.equal(passesDeviceCheck(allOf, { processes: [a, b] }), true);
  assert.equal(passesDeviceCheck(allOf, { processes: [a] }), false, 'b not reported');
  assert.equal(passesDeviceCheck(allOf, { processes: [a, { ...b, signerFingerprints: ['s3'] }] }), false, 'b signed by another');
  assert.equal(passesDeviceCheck(anyOf, { processes: [a] }), true);
  assert.equal(passesDeviceCheck(anyOf, { processes: [{ ...a, isRunning: false }, { ...b, binaryHash: 'anything' }] }), true, 'b has no hash list');
  assert.equal(passesDeviceCheck(anyOf, { processes: [{ ...a, binaryHash: 'h2' }] }), false);
  assert.equal(passesDeviceCheck(anyOf, {}), false);
  assert.equal(passesDeviceCheck(check({ typeId: 'PROCESS_MULTI', semantic: 'AnyOf', processes: [] }), { processes: [a] }), false, 'no processes: nothing can pass');
});
