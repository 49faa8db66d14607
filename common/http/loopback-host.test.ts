import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostHeaderCheck, isLoopbackAddress } from './loopback-host.ts';

test('a loopback server takes its own names with its port, and nothing else', () => {
  const allowed = hostHeaderCheck('127.0.0.1', 9110, 80);
  for (const host of ['127.0.0.1:9110', 'localhost:9110', 'LOCALHOST:9110', '[::1]:9110']) assert.ok(allowed(host), host);
  for (const host of [undefined, '', 'attacker.example:9110', '127.0.0.1', '127.0.0.1:9111', 'localhost', '10.0.0.1:9110', '127.0.0.1:9110.evil']) assert.ok(!allowed(host), String(host));
});

test('the configured address is accepted too, and a bare name only on the default port', () => {
  assert.ok(hostHeaderCheck('127.0.0.2', 8080, 80)('127.0.0.2:8080'));
  assert.ok(hostHeaderCheck('::1', 8080, 80)('[::1]:8080'));
  assert.ok(hostHeaderCheck('localhost', 80, 80)('localhost'));
  assert.ok(hostHeaderCheck('127.0.0.1', 443, 443)('127.0.0.1'));
  assert.ok(!hostHeaderCheck('127.0.0.1', 443, 443)('evil.example'));
});

test('a server on a non-loopback address is reached by names it cannot know: no check', () => {
  assert.ok(hostHeaderCheck('0.0.0.0', 9105, 80)('prometheus-scrapes-me.example:9105'));
  assert.ok(!isLoopbackAddress('0.0.0.0'));
  assert.ok(isLoopbackAddress('127.5.5.5') && isLoopbackAddress('[::1]') && isLoopbackAddress('localhost'));
});
