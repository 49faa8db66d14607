import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requireCommonName, requireDnsName, requireId, requireIpAddress, requireTrustDomain, requireValidityDays } from './name-rules.ts';
import { isPkiError } from './pki-error-assertions.ts';

describe('name rules', () => {
  it('accepts ids of 1-64 safe characters and refuses path tricks', () => {
    for (const id of ['c', 'ctrl-1', 'Ctrl_2.eu', 'a'.repeat(64), '...']) assert.equal(requireId(id), id);
    for (const id of ['', '.', '..', 'a/b', 'a b', 'ü', 'a'.repeat(65), '../etc']) {
      assert.throws(() => requireId(id), isPkiError('INVALID_ARGUMENT', /invalid id/), JSON.stringify(id));
    }
  });

  it('accepts lowercase DNS-like trust domains only', () => {
    for (const td of ['edgeward.local', 'example.org', 'td', 'a-b.c1']) assert.equal(requireTrustDomain(td), td);
    for (const td of ['', 'Example.org', 'a..b', '-a.b', 'a-.b', 'a_b.c', 'a.b.', `${'a'.repeat(64)}.b`, 'spiffe://x']) {
      assert.throws(() => requireTrustDomain(td), isPkiError('INVALID_ARGUMENT', /trust domain/), td);
    }
  });

  it('lowercases DNS names and allows one leading wildcard', () => {
    assert.equal(requireDnsName('Ctrl1.Example.COM'), 'ctrl1.example.com');
    assert.equal(requireDnsName('*.example.com'), '*.example.com');
    assert.equal(requireDnsName('localhost'), 'localhost');
    for (const name of ['', 'a..b', 'a.*.b', '*', 'under_score.test', 'a b', '127.0.0.1/8']) {
      assert.throws(() => requireDnsName(name), isPkiError('INVALID_ARGUMENT', /DNS name/), name);
    }
  });

  it('canonicalizes IP addresses and refuses zones, prefixes and junk', () => {
    assert.equal(requireIpAddress('127.0.0.1'), '127.0.0.1');
    assert.equal(requireIpAddress('::1'), '::1');
    assert.equal(requireIpAddress('2001:DB8:0:0::1'), '2001:db8::1');
    assert.equal(requireIpAddress('::ffff:10.0.0.1'), '::ffff:a00:1');
    for (const ip of ['', 'localhost', '256.0.0.1', '10.0.0.1/8', 'fe80::1%eth0', '1.2.3']) {
      assert.throws(() => requireIpAddress(ip), isPkiError('INVALID_ARGUMENT', /IP address/), ip);
    }
  });

  it('bounds common names and validity', () => {
    assert.equal(requireCommonName('Alice Example'), 'Alice Example');
    for (const cn of ['', '   ', 'x'.repeat(65), 'a\nb']) assert.throws(() => requireCommonName(cn), isPkiError('INVALID_ARGUMENT', /common name/));
    assert.equal(requireValidityDays(1), 1);
    for (const days of [0, -1, 1.5, Number.NaN, 36_501]) assert.throws(() => requireValidityDays(days), isPkiError('INVALID_ARGUMENT', /validity/));
  });
});
