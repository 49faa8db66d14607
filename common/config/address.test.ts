import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatAddress, formatHostPort, parseAddress, parseHostPort } from './address.ts';

describe('parseHostPort', () => {
  it('parses names, IPv4 and bracketed IPv6', () => {
    assert.deepEqual(parseHostPort('127.0.0.1:1280'), { ok: true, value: { host: '127.0.0.1', port: 1280 } });
    assert.deepEqual(parseHostPort('ctrl-1.example.com:443'), { ok: true, value: { host: 'ctrl-1.example.com', port: 443 } });
    assert.deepEqual(parseHostPort('[::1]:6262'), { ok: true, value: { host: '::1', port: 6262 } });
    assert.deepEqual(parseHostPort('[fe80::1%eth0]:1'), { ok: true, value: { host: 'fe80::1%eth0', port: 1 } });
  });

  it('explains what is wrong', () => {
    const message = (text: string): string => {
      const result = parseHostPort(text);
      assert.equal(result.ok, false, text);
      return result.ok ? '' : result.message;
    };
    assert.match(message('localhost'), /missing port/);
    assert.match(message(':80'), /missing host/);
    assert.match(message('::1:80'), /must be in brackets/);
    assert.match(message('[::1]80'), /missing port/);
    assert.match(message('[::1:80'), /unclosed/);
    assert.match(message('[nope]:80'), /not an IPv6/);
    assert.match(message('host:http'), /not a number/);
    assert.match(message('host:0'), /outside 1-65535/);
    assert.match(message('host:65536'), /outside 1-65535/);
    assert.match(message('300.1.1.1:80'), /not a valid IPv4/);
    assert.match(message('bad host:80'), /not a valid host/);
  });
});

describe('parseAddress', () => {
  it('parses <protocol>:<host>:<port>', () => {
    assert.deepEqual(parseAddress('tls:127.0.0.1:6262', ['tls']), { ok: true, value: { protocol: 'tls', host: '127.0.0.1', port: 6262 } });
    assert.deepEqual(parseAddress('tcp:[::]:80'), { ok: true, value: { protocol: 'tcp', host: '::', port: 80 } });
  });

  it('rejects a missing or disallowed protocol', () => {
    assert.deepEqual(parseAddress('127.0.0.1:6262', ['tls']), { ok: false, message: 'missing protocol; expected tls:<host>:<port>' });
    assert.deepEqual(parseAddress('tcp:127.0.0.1:6262', ['tls']), { ok: false, message: 'protocol "tcp" is not allowed here (allowed: tls)' });
    assert.equal(parseAddress('TLS:1.2.3.4:5').ok, false);
    assert.equal(parseAddress('tls:1.2.3.4').ok, false);
  });

  it('formats back with brackets for IPv6', () => {
    assert.equal(formatAddress({ protocol: 'tls', host: '::1', port: 6262 }), 'tls:[::1]:6262');
    assert.equal(formatHostPort({ host: 'example.com', port: 1280 }), 'example.com:1280');
  });
});
