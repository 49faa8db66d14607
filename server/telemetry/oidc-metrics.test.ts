import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExposition } from '../../test/support/prometheus-text.ts';
import { ControllerMetrics } from './controller-metrics.ts';
import { OidcMetrics } from './oidc-metrics.ts';

test('OIDC token outcomes count by grant and result from 0; the gauges read the provider at scrape time', async () => {
  const metrics = new ControllerMetrics({ controllerId: 'c1', version: 'v1', appliedIndex: () => 0, apiSessionCount: () => 0, isLeader: () => true });
  try {
    let pending = 3;
    const oidc = new OidcMetrics(metrics.meter, { pendingAuthorizationRequests: () => pending, publishedSigningKeys: () => 2 });
    let families = parseExposition(await metrics.text());
    const tokens = () => families.get('edgeward_oidc_tokens_total')?.samples.map((sample) => ({ ...sample.labels, value: sample.value }) as Record<string, string | number>) ?? [];
    assert.equal(tokens().length, 8);
    assert.ok(tokens().every((sample) => sample.value === 0));
    assert.equal(families.get('edgeward_oidc_authorization_requests_pending')?.samples[0]?.value, 3);
    assert.equal(families.get('edgeward_oidc_signing_keys')?.samples[0]?.value, 2);

    oidc.token({ kind: 'refused', grant: 'refresh_token', reason: 'expired' });
    oidc.token({ kind: 'refused', grant: 'refresh_token', reason: 'expired' });
    oidc.token({ kind: 'refreshed', grant: 'urn:ietf:params:oauth:grant-type:token-exchange' });
    oidc.token({ kind: 'issued', grant: 'authorization_code', method: 'cert' });
    oidc.token({ kind: 'refused', grant: 'made-up' });
    pending = 0;
    families = parseExposition(await metrics.text());
    const value = (grant: string, result: string) => tokens().find((sample) => sample.grant === grant && sample.result === result)?.value;
    assert.equal(value('refresh_token', 'refused'), 2);
    assert.equal(value('token_exchange', 'refreshed'), 1);
    assert.equal(value('authorization_code', 'issued'), 1);
    assert.equal(value('other', 'refused'), 1, 'an unknown grant is not a label value of its own');
    assert.equal(families.get('edgeward_oidc_authorization_requests_pending')?.samples[0]?.value, 0);
  } finally {
    await metrics.close();
  }
});
