// What an operator sees of OIDC tokens on a three-controller cluster: a login, a refresh, a refused refresh and a
// revocation served by a follower are apiSession (type jwt) and authentication events in that follower's event file,
// and counted in its /metrics by grant and result beside the pending authorization requests and published signing
// keys; promtool accepts the exposition. A storm of refused refreshes across the controllers makes a real Prometheus,
// scraping them under the generated rules, fire EdgewardOidcRefreshFailures.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as client from 'openid-client';
import { memberList, threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeAdmin } from './support/ext-jwt-support.ts';
import { authorize, finishLogin, jwtClaims, loginStep, relyingParty } from './support/oidc-user-agent.ts';
import { parseExposition } from './support/prometheus-text.ts';
import { prometheusAlerts, prometheusRuleGroups } from './support/prometheus-api.ts';
import { PrometheusServer } from './support/prometheus-server.ts';
import { pkiPaths } from '../common/pki/pki-directory.ts';
import { stringify } from 'yaml';

const root = mkdtempSync(join(tmpdir(), 'edgeward-oidc-obs-'));
const promtool = '/usr/bin/promtool';
let nodes: ControllerFixture[] = [];
let follower: ControllerFixture;
let identityId = '';

before(async () => {
  nodes = await threeControllerCluster(join(root, 'pki'));
  const admin = new EdgeAdmin(nodes[0]!, await until('an admin session', () => nodes[0]!.adminToken()));
  identityId = await admin.createIdentity('oidc-watched', { password: 'oidc-watched-password' });
  const leaderId = (await memberList(nodes[0]!)).find((row) => row.leader)?.id;
  follower = nodes.find((node) => node.id !== leaderId)!;
  // Every controller publishes its signing key as it starts; a login before the follower's own is committed cannot be signed.
  await until(`three published signing keys on ${follower.id}`, async () => (await follower.http.get(`${follower.origin}/oidc/keys`)).json?.keys?.length === 3);
  await until(`the identity on ${follower.id}`, async () => (await follower.http.get(`${follower.managementApi}/identities/${identityId}`, { headers: admin.headers })).status === 200);
});

after(async () => {
  await Promise.all(nodes.map((node) => node.dispose()));
  if (!process.env.KEEP) rmSync(root, { recursive: true, force: true });
});

function events(node: ControllerFixture, namespace: string): Record<string, any>[] {
  if (!existsSync(node.eventsFile)) return [];
  return readFileSync(node.eventsFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes(`"namespace":"${namespace}"`))
    .map((line) => JSON.parse(line) as Record<string, any>);
}

async function tokenCounts(node: ControllerFixture) {
  const text = (await node.http.get(`${node.origin}/metrics`)).text;
  const families = parseExposition(text);
  const count = (grant: string, result: string) => families.get('edgeward_oidc_tokens_total')?.samples.find((sample) => sample.labels.grant === grant && sample.labels.result === result)?.value;
  return { text, families, count };
}

test('a follower that serves a login, a refresh, a refused refresh and a revocation writes them as events and counts them', async () => {
  const before = await tokenCounts(follower);
  assert.equal(before.count('refresh_token', 'refused'), 0, 'the refused series exists from the start');

  const config = await relyingParty(follower.http, follower.origin);
  const pending = await authorize(follower.http, config);
  const answer = await loginStep(follower.http, follower.origin, 'password', pending, { username: 'oidc-watched', password: 'oidc-watched-password' });
  const tokens = await finishLogin(follower.http, config, pending, answer);
  const asid = jwtClaims(tokens.access_token).z_asid as string;
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);

  const tampered = `${refreshed.refresh_token!.slice(0, -4)}${refreshed.refresh_token!.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
  await assert.rejects(client.refreshTokenGrant(config, tampered), (error: { error?: string }) => error.error === 'invalid_grant');
  await client.tokenRevocation(config, refreshed.refresh_token!);

  const sessionEvents = await until('the follower\'s jwt apiSession events', () => {
    const found = events(follower, 'apiSession').filter((event) => event.type === 'jwt' && event.id === asid);
    return found.length >= 3 ? found : undefined;
  });
  assert.deepEqual(
    sessionEvents.map((event) => [event.event_type, event.grant, event.event_src_id, event.identity_id]),
    [
      ['created', 'authorization_code', follower.id, identityId],
      ['refreshed', 'refresh_token', follower.id, identityId],
      ['revoked', 'refresh_token', follower.id, identityId],
    ],
  );
  assert.equal(sessionEvents[0]!.auth_method, 'password');
  for (const event of sessionEvents) assert.doesNotMatch(JSON.stringify(event), /eyJ/, 'no token in an event');
  const refusal = await until('the refused refresh as an authentication event', () => events(follower, 'authentication').find((event) => event.type === 'oidc'));
  assert.equal(refusal.event_type, 'fail');
  assert.match(refusal.reason, /^refresh_token refused: /);
  assert.equal(refusal.event_src_id, follower.id);
  for (const node of nodes.filter((other) => other !== follower)) {
    assert.equal(events(node, 'apiSession').filter((event) => event.type === 'jwt').length, 0, `${node.id} served no token and wrote no jwt event`);
  }

  const after = await tokenCounts(follower);
  assert.equal(after.count('authorization_code', 'issued'), 1);
  assert.equal(after.count('refresh_token', 'refreshed'), 1);
  assert.equal(after.count('refresh_token', 'refused'), 1);
  assert.equal(after.count('refresh_token', 'revoked'), 1);
  assert.equal(after.families.get('edgeward_oidc_signing_keys')?.samples[0]?.value, 3, 'every controller published its key');
  await promtoolAccepts(after.text);
});

test('an authorization request whose login is not finished shows in the pending gauge of the controller that holds it', async () => {
  const gauge = async (node: ControllerFixture) => (await tokenCounts(node)).families.get('edgeward_oidc_authorization_requests_pending')?.samples[0]?.value;
  const start = await gauge(follower);
  assert.equal(typeof start, 'number');
  const config = await relyingParty(follower.http, follower.origin);
  await authorize(follower.http, config);
  await authorize(follower.http, config);
  assert.equal(await gauge(follower), start! + 2);
});

test('refused refreshes across the controllers fire EdgewardOidcRefreshFailures in a real Prometheus under the generated rules', async () => {
  // The generated rules with their hold times at 0 s, so the alert fires at the first evaluation past its threshold.
  const rulesFile = join(root, 'rules.yml');
  writeFileSync(rulesFile, readFileSync(new URL('../alerts/generated/edgeward-rules.yml', import.meta.url), 'utf8').replace(/^(\s+for:) \S+$/gm, '$1 0s'));
  const configFile = join(root, 'prometheus.yml');
  writeFileSync(
    configFile,
    stringify({
      global: { scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '1s' },
      rule_files: [rulesFile],
      scrape_configs: [
        {
          job_name: 'edgeward-controller',
          scheme: 'https',
          tls_config: { ca_file: pkiPaths(join(root, 'pki')).bundle },
          static_configs: nodes.map((node) => ({ targets: [new URL(node.origin).host], labels: { cluster: 'oidc', controller: node.id } })),
        },
      ],
    }),
  );
  const prometheus = await PrometheusServer.start(configFile);
  try {
    const firing = async () => (await prometheusAlerts(prometheus.url)).filter((alert) => alert.labels.alertname === 'EdgewardOidcRefreshFailures' && alert.state === 'firing');
    await until('every controller\'s refused-refresh counter in Prometheus', async () => {
      const answer = await prometheus.query('count(edgeward_oidc_tokens_total{cluster="oidc",grant="refresh_token",result="refused"})');
      return answer.ok && answer.series[0]?.value?.[1] === '3';
    }, 30_000);
    const rule = (await prometheusRuleGroups(prometheus.url)).flatMap((group) => group.rules).find((candidate) => candidate.name === 'EdgewardOidcRefreshFailures');
    assert.equal(rule?.health, 'ok', `the rule evaluates: ${rule?.lastError ?? 'not loaded'}`);
    assert.deepEqual(await firing(), [], 'quiet before the storm');

    // 40 refreshes with tokens no controller signed, spread over the three: 30 in 5 minutes is the threshold.
    for (let i = 0; i < 40; i++) {
      const node = nodes[i % nodes.length]!;
      const answer = await node.http.post(`${node.origin}/oidc/oauth/token`, {
        rawBody: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'openziti', refresh_token: `not-a-token-${i}` }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(answer.status, 400, answer.text);
    }
    const alerts = await until('EdgewardOidcRefreshFailures firing', async () => {
      const found = await firing();
      return found.length > 0 ? found : undefined;
    }, 40_000);
    assert.equal(alerts.length, 1, 'one alert for the cluster');
    assert.equal(alerts[0]!.labels.cluster, 'oidc');
    assert.equal(alerts[0]!.labels.severity, 'warning');
    assert.match(alerts[0]!.annotations.runbook_url ?? '', /#edgewardoidcrefreshfailures$/, 'the runbook section of the alert');
  } finally {
    await prometheus.stop();
  }
});

async function promtoolAccepts(text: string): Promise<void> {
  assert.ok(existsSync(promtool), `${promtool} is missing: install Debian's prometheus package (scripts/ensure-deps.sh does)`);
  const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(promtool, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
    child.stdin.end(text);
  });
  assert.equal(result.code, 0, `promtool check metrics: ${result.output}`);
  assert.equal(result.output.trim(), '', `promtool has remarks: ${result.output}`);
}
