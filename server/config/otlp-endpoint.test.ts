import assert from 'node:assert/strict';
import { test } from 'node:test';
import { otlpEndpointProblem, tracesUrl } from './otlp-endpoint.ts';

test('an endpoint is an http(s) URL with a host and nothing that would leak or be dropped', () => {
  assert.equal(otlpEndpointProblem('http://127.0.0.1:4318'), undefined);
  assert.equal(otlpEndpointProblem('https://collector.example/otlp'), undefined);
  assert.match(otlpEndpointProblem('127.0.0.1:4318') ?? '', /http/);
  assert.match(otlpEndpointProblem('grpc://collector:4317') ?? '', /not grpc:/);
  assert.match(otlpEndpointProblem('https://user:pw@collector') ?? '', /credentials/);
  assert.match(otlpEndpointProblem('http://collector/#x') ?? '', /query or fragment/);
});

test('the traces URL goes under the base, with or without its trailing slash', () => {
  assert.equal(tracesUrl('http://c:4318'), 'http://c:4318/v1/traces');
  assert.equal(tracesUrl('http://c:4318/'), 'http://c:4318/v1/traces');
  assert.equal(tracesUrl('https://c/otlp'), 'https://c/otlp/v1/traces');
});
