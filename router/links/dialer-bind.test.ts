import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindAddressFor, type InterfaceTable } from './dialer-bind.ts';

const interfaces: InterfaceTable = {
  lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
  eth0: [
    { address: 'fe80::1', family: 'IPv6' },
    { address: '2001:db8::5', family: 'IPv6' },
    { address: '10.0.0.5', family: 'IPv4' },
  ],
};

describe('link dialer bind', () => {
  it('uses an IP as written', () => {
    assert.equal(bindAddressFor('192.0.2.7', '10.0.0.2', interfaces), '192.0.2.7');
    assert.equal(bindAddressFor('[2001:db8::9]', '2001:db8::1', interfaces), '2001:db8::9');
  });

  it('takes an interface address of the target family', () => {
    assert.equal(bindAddressFor('eth0', '10.0.0.2', interfaces), '10.0.0.5');
    assert.equal(bindAddressFor('eth0', 'router.example.com', interfaces), '10.0.0.5');
    assert.equal(bindAddressFor('eth0', '2001:db8::1', interfaces), '2001:db8::5');
  });

  it('has no address for an unknown interface or a missing family', () => {
    assert.equal(bindAddressFor('wlan9', '10.0.0.2', interfaces), undefined);
    assert.equal(bindAddressFor('lo', '2001:db8::1', interfaces), undefined);
  });
});
