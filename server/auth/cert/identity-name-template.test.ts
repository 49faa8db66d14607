import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIdentityName, validateIdentityNameFormat } from './identity-name-template.ts';

describe('identity name template', () => {
  const values = { caName: 'acme', caId: 'Ca1', commonName: 'sensor-7', requestedName: 'kitchen', identityId: 'Id9' };

  it('uses [caName]-[commonName] when no template is set', () => {
    assert.equal(formatIdentityName(undefined, values), 'acme-sensor-7');
    assert.equal(formatIdentityName(null, values), 'acme-sensor-7');
    assert.equal(formatIdentityName('', values), 'acme-sensor-7');
  });

  it('replaces every placeholder, each as often as it appears', () => {
    assert.equal(formatIdentityName('[caName]/[caId]/[commonName]/[requestedName]/[identityId]/[caName]', values), 'acme/Ca1/sensor-7/kitchen/Id9/acme');
  });

  it('leaves unknown placeholders and other brackets as written', () => {
    assert.equal(formatIdentityName('[tenant]-[commonName]-[CAName]-[', values), '[tenant]-sensor-7-[CAName]-[');
  });

  it('uses the identity id when no name was requested, as OpenZiti does', () => {
    const { requestedName: _unused, ...withoutRequest } = values;
    assert.equal(formatIdentityName('[requestedName]', withoutRequest), 'Id9');
    assert.equal(formatIdentityName('[requestedName]', { ...values, requestedName: '' }), 'Id9');
  });

  it('does not expand placeholders that appear inside a value', () => {
    assert.equal(formatIdentityName('[commonName]', { ...values, commonName: '[caId]' }), '[caId]');
  });

  it('reports an empty or overlong format and accepts a usable one', () => {
    assert.match(validateIdentityNameFormat('')!, /must not be empty/);
    assert.match(validateIdentityNameFormat('   ')!, /must not be empty/);
    assert.match(validateIdentityNameFormat('x'.repeat(513))!, /at most 512/);
    assert.equal(validateIdentityNameFormat('x'.repeat(512)), undefined);
    assert.equal(validateIdentityNameFormat('[caName]-[commonName]'), undefined);
  });
});
