// The generated API description: every route under the API's prefix once, as a Swagger 2.0 path with its method,
// path parameters and media type; routes of other prefixes left out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { specDocument } from './api-spec-document.ts';

test('a Swagger 2.0 document of exactly the routes under the prefix', () => {
  const document = specDocument(
    [
      { method: 'GET', path: '/edge/management/v1/' },
      { method: 'GET', path: '/edge/management/v1/identities' },
      { method: 'POST', path: '/edge/management/v1/identities' },
      { method: 'GET', path: '/edge/management/v1/identities/:id/policy-advice/:serviceId' },
      { method: 'GET', path: '/edge/management/v1/cas/:id/jwt' },
      { method: 'GET', path: '/edge/management/v1/identities' },
      { method: 'GET', path: '/edge/client/v1/services' },
      { method: 'GET', path: '/version' },
    ],
    { name: 'edge-management', title: 'edgeward Edge Management API', version: 'v1.2.3', basePath: '/edge/management/v1' },
  ) as { swagger: string; info: { version: string }; basePath: string; paths: Record<string, Record<string, { operationId: string; produces: string[]; parameters?: unknown[] }>> };
  assert.equal(document.swagger, '2.0');
  assert.equal(document.info.version, 'v1.2.3');
  assert.equal(document.basePath, '/edge/management/v1');
  assert.deepEqual(Object.keys(document.paths), ['/', '/cas/{id}/jwt', '/identities', '/identities/{id}/policy-advice/{serviceId}']);
  assert.deepEqual(Object.keys(document.paths['/identities']!), ['get', 'post']);
  const advice = document.paths['/identities/{id}/policy-advice/{serviceId}']!.get!;
  assert.equal(advice.operationId, 'getIdentitiesIdPolicyAdviceServiceId');
  assert.deepEqual(advice.parameters, [
    { name: 'id', in: 'path', required: true, type: 'string' },
    { name: 'serviceId', in: 'path', required: true, type: 'string' },
  ]);
  assert.deepEqual(document.paths['/cas/{id}/jwt']!.get!.produces, ['application/jwt']);
  const ids = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((operation) => operation.operationId));
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});
