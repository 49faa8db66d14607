import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RouterHello } from '../../common/control-channel/control-messages.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { admitRouter, readHello } from './router-admission.ts';

const at = '2026-01-01T00:00:00.000Z';
const router = (changes: Partial<EdgeRouter> = {}): EdgeRouter => ({
  id: 'r1', createdAt: at, updatedAt: at, tags: {}, name: 'router one', roleAttributes: [], isTunnelerEnabled: false, cost: 0, noTraversal: false, disabled: false, appData: {},
  isVerified: true, fingerprint: 'aa11', certPem: 'pem', enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null, ...changes,
});
const hello = (changes: Partial<RouterHello> = {}): RouterHello => ({ type: 'router.hello', routerId: 'r1', version: 'v1', linkListeners: [], ...changes });
const certificate = { commonName: 'r1', fingerprint: 'aa11' };

test('an enrolled, enabled router presenting its enrolled certificate and naming itself is admitted', () => {
  assert.deepEqual(admitRouter(certificate, hello(), router()), { ok: true });
});

test('each reason a router is refused is named', () => {
  const refusal = (...args: Parameters<typeof admitRouter>) => {
    const result = admitRouter(...args);
    assert.equal(result.ok, false);
    return (result as { reason: string }).reason;
  };
  assert.match(refusal({ commonName: undefined, fingerprint: 'aa11' }, hello(), router()), /no common name/);
  assert.match(refusal(certificate, hello(), undefined), /no edge router has the id r1/);
  assert.match(refusal(certificate, hello({ routerId: 'r2' }), router()), /router\.hello names router r2 but the client certificate names r1/);
  assert.match(refusal(certificate, hello(), router({ isVerified: false, fingerprint: null })), /r1 is not enrolled/);
  assert.match(refusal({ commonName: 'r1', fingerprint: 'bb22' }, hello(), router()), /not the one edge router r1 enrolled with/);
  assert.match(refusal(certificate, hello(), router({ disabled: true })), /r1 is disabled/);
});

test('a disabled router is refused only after its certificate proved who it is', () => {
  const result = admitRouter({ commonName: 'r1', fingerprint: 'other' }, hello(), router({ disabled: true }));
  assert.equal(result.ok, false);
  assert.match((result as { reason: string }).reason, /not the one/);
});

test('readHello accepts the contract shape and keeps only what it defines', () => {
  const listener = { binding: 'transport', advertise: 'tls:[::1]:4000', groups: ['default', 'eu'] };
  const read = readHello({ type: 'router.hello', routerId: 'r1', version: 'v1', linkListeners: [listener], hostname: 'h', supportedProtocols: { tls: 'tls:h:3022' }, extra: 1 });
  assert.deepEqual(read, { ok: true, hello: { type: 'router.hello', routerId: 'r1', version: 'v1', linkListeners: [listener], hostname: 'h', supportedProtocols: { tls: 'tls:h:3022' } } });
});

test('readHello refuses anything else first, and malformed hellos, saying what is wrong', () => {
  const reason = (frame: unknown) => {
    const read = readHello(frame);
    assert.equal(read.ok, false, JSON.stringify(frame));
    return (read as { reason: string }).reason;
  };
  assert.match(reason({ type: 'hb', sentAt: 1 }), /expected router\.hello as the first frame, got "hb"/);
  assert.match(reason(null), /expected router\.hello/);
  assert.match(reason([1]), /a frame without a type/);
  const base = { type: 'router.hello', routerId: 'r1', version: 'v1', linkListeners: [] };
  assert.match(reason({ ...base, routerId: '' }), /routerId/);
  assert.match(reason({ ...base, version: 3 }), /version/);
  assert.match(reason({ ...base, linkListeners: {} }), /linkListeners must be a list/);
  assert.match(reason({ ...base, linkListeners: [{ binding: 'edge', advertise: 'tls:a:1', groups: [] }] }), /linkListeners\[0\]\.binding/);
  assert.match(reason({ ...base, linkListeners: [{ binding: 'transport', advertise: 'a:1', groups: [] }] }), /advertise must be tls:<host>:<port>/);
  assert.match(reason({ ...base, linkListeners: [{ binding: 'transport', advertise: 'tls:a:1', groups: [1] }] }), /groups must be a list of strings/);
  assert.match(reason({ ...base, hostname: 5 }), /hostname/);
  assert.match(reason({ ...base, supportedProtocols: { tls: 1 } }), /supportedProtocols/);
});
