import assert from 'node:assert/strict';
import { test } from 'node:test';
import { managementBaseUrl } from './controller-url.ts';
import { EdgeUsageError } from './edge-args.ts';

test("the controller's address and the Management API's URL both name the Management API", () => {
  for (const given of ['https://127.0.0.1:1280', 'https://127.0.0.1:1280/', '127.0.0.1:1280', 'https://127.0.0.1:1280/edge/management/v1', 'https://127.0.0.1:1280/edge/management/v1/']) {
    assert.equal(managementBaseUrl(given), 'https://127.0.0.1:1280/edge/management/v1', given);
  }
  assert.equal(managementBaseUrl('https://ctrl.example.com'), 'https://ctrl.example.com/edge/management/v1', 'the default port');
  assert.equal(managementBaseUrl(' HTTPS://Ctrl.Example.com:8441 '), 'https://ctrl.example.com:8441/edge/management/v1');
});

test('other URLs are usage errors that say why', () => {
  const refused = (given: string, message: RegExp) => assert.throws(() => managementBaseUrl(given), (error: unknown) => error instanceof EdgeUsageError && message.test(error.message), given);
  refused('http://127.0.0.1:1280', /not an https URL/);
  refused('https://127.0.0.1:1280/edge/client/v1', /not the controller's address nor its \/edge\/management\/v1 URL/);
  refused('https://127.0.0.1:1280/?x=1', /carries a query/);
  refused('https://admin:pw@127.0.0.1:1280', /credentials/);
  refused('https://', /is not a URL/);
  refused('', /empty/);
});
