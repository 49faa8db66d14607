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

  it('leases names under wildcards up to a cap, the least recently asked giving its address up; spelled-out names stay', () => {
    const range = parseIpv4Range('10.1.2.0/24');
    assert.ok(!('error' in range));
    const pool = new AddressPool(range, 2);
    assert.equal(pool.addressOf('exact.ziti'), '10.1.2.3');
    assert.equal(pool.leaseFor('a.w.ziti'), '10.1.2.4');
    assert.equal(pool.leaseFor('b.w.ziti'), '10.1.2.5');
    assert.equal(pool.leaseFor('a.w.ziti'), '10.1.2.4', 'asked again: now the most recent');
    assert.equal(pool.leaseFor('c.w.ziti'), '10.1.2.6', 'a fresh address while the range has one');
    assert.equal(pool.peek('b.w.ziti'), undefined, 'b was the least recently asked');
    assert.deepEqual(pool.names(), ['exact.ziti', 'a.w.ziti', 'c.w.ziti']);
    assert.deepEqual([pool.wildcardNames, pool.evicted], [2, 1]);
    assert.equal(pool.leaseFor('exact.ziti'), '10.1.2.3', 'a spelled-out name under a wildcard keeps its own address');
  });

  it('once the range is used up, a new name takes over the least recently asked name\'s address', () => {
    const range = parseIpv4Range('10.1.2.0/29');
    assert.ok(!('error' in range));
    const pool = new AddressPool(range, 100);
    pool.addressOf('exact.ziti');
    const leased = ['a', 'b', 'c'].map((name) => pool.leaseFor(`${name}.w.ziti`));
    assert.deepEqual(leased, ['10.1.2.4', '10.1.2.5', '10.1.2.6']);
    pool.leaseFor('a.w.ziti');
    assert.equal(pool.leaseFor('d.w.ziti'), '10.1.2.5', "b's address");
    assert.equal(pool.addressOf('late.ziti'), '10.1.2.6', "a spelled-out name takes c's rather than none");
    assert.deepEqual(pool.names(), ['exact.ziti', 'late.ziti', 'a.w.ziti', 'd.w.ziti']);
    assert.equal(new AddressPool(range, 0).leaseFor('x.w.ziti'), undefined, 'a cap of 0 leases nothing');
  });
});
