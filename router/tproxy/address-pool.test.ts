import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddressPool, parseIpv4Range } from './address-pool.ts';

describe('the tproxy address pool', () => {
  it('hands out addresses from two after the given one, one per name, the same every time', () => {
    const range = parseIpv4Range('100.64.0.1/10');
    assert.ok(!('error' in range));
    assert.equal(range.cidr, '100.64.0.0/10');
    const pool = new AddressPool(range);
    assert.equal(pool.addressOf('a.ziti'), '100.64.0.3');
    assert.equal(pool.addressOf('b.ziti'), '100.64.0.4');
    assert.equal(pool.addressOf('a.ziti'), '100.64.0.3');
    assert.equal(pool.peek('c.ziti'), undefined);
    assert.deepEqual(pool.names(), ['a.ziti', 'b.ziti']);
  });

  it('runs out at the end of a small range, and refuses what is no IPv4 CIDR', () => {
    const range = parseIpv4Range('10.1.2.0/29');
    assert.ok(!('error' in range));
    const pool = new AddressPool(range);
    const given = Array.from({ length: 6 }, (_, index) => pool.addressOf(`n${index}`));
    assert.deepEqual(given, ['10.1.2.3', '10.1.2.4', '10.1.2.5', '10.1.2.6', undefined, undefined]);
    for (const bad of ['10.1.2.0', '10.1.2.0/31', '300.1.2.0/24', 'fd00::/64', '10.1.2.0/7']) assert.ok('error' in parseIpv4Range(bad), bad);
  });
});
