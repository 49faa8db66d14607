import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createJsonLogger } from '../../../common/log/logger.ts';
import { logRules } from '../rules/alert-rules.ts';
import { LineScanner } from './line-scanner.ts';
import { logNeedleTable, matchLogLine } from './log-line.ts';
import type { LogLineOutcome } from './log-line.ts';

const table = logNeedleTable(logRules);

function outcomes(text: string): LogLineOutcome[] {
  const scanner = new LineScanner({ needles: table.needles, maxLineBytes: 4096 });
  return scanner.scan(Buffer.from(text)).matches.map((match) => matchLogLine(match, table));
}

const ruleIds = (outcome: LogLineOutcome | undefined) => (outcome?.kind === 'matched' ? outcome.rules.map((rule) => rule.id) : outcome?.kind);

/** Lines as the controller writes them: its JSON logger, the component's child logger, the emitter's msg and fields. */
function written(component: string, level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): string {
  let text = '';
  const root = createJsonLogger({ sink: (line) => (text = line), level: 'debug', component: 'controller', fields: { controllerId: 'ctrl1' } });
  (component === 'controller' ? root : root.child(component))[level](msg, fields);
  return `${text}\n`;
}

/** The first frame a client sent, as the router hub quotes it in its refusal's reason. */
const refusedFirstFrame = (type: string) => `expected router.hello as the first frame, got ${JSON.stringify(type)}`;

describe('matchLogLine', () => {
  it('matches a rule on its emitter\'s line and takes the time and peerId; the record names the rule\'s text, not the line\'s', () => {
    const [outcome] = outcomes('{"level":"info","time":"2026-11-21T23:50:00.084Z","msg":"peer disconnected","component":"peers","controllerId":"ctrl1","peerId":"ctrl2","reason":"connection closed"}\n');
    assert.deepEqual(outcome, {
      kind: 'matched',
      rules: [logRules.find((rule) => rule.id === 'peer-disconnected-log')],
      lines: ['peer disconnected'],
      record: { at: Date.parse('2026-11-21T23:50:00.084Z'), peerId: 'ctrl2' },
    });
  });

  it('matches every real emitter\'s line, as the controller\'s logger writes it', () => {
    const real: [string, string][] = [
      [written('cluster', 'warn', 'cluster running without leader for longer than configured threshold', { leaderlessForMs: 10_004, warnWhenLeaderlessForMs: 10_000 }), 'leaderless-log'],
      [written('cluster', 'warn', 'entering read-only mode: different versions detected in cluster', { versions: { ctrl1: 'v1', ctrl2: 'v2' } }), 'read-only-entered-log'],
      [written('cluster', 'info', 'exiting read-only mode: all connected members report the same version', { version: 'v2' }), 'read-only-exited-log'],
      [written('peers', 'info', 'peer connected', { peerId: 'ctrl2', address: 'tls:127.0.0.1:6262', version: 'v2' }), 'peer-connected-log'],
      [written('peers', 'info', 'peer disconnected', { peerId: 'ctrl2', reason: 'connection closed' }), 'peer-disconnected-log'],
      [written('web', 'info', 'request refused', { requestId: 'r1', code: 'CLUSTER_NO_LEADER', method: 'POST', path: '/x', cause: 'ClusterHasNoLeaderError: the cluster has no leader' }), 'writes-refused-no-leader'],
      [written('agent', 'info', 'agent command failed', { command: 'cluster.add', error: 'ClusterHasNoLeaderError: the cluster has no leader' }), 'writes-refused-no-leader'],
      [written('auth', 'warn', 'could not record a failed password attempt', { identityId: 'i1', during: 'login', error: 'ClusterHasNoLeaderError: the cluster has no leader' }), 'writes-refused-no-leader'],
      [written('mfa', 'warn', 'could not record a failed MFA code', { identityId: 'i1', error: 'ClusterHasNoLeaderError: the cluster has no leader' }), 'writes-refused-no-leader'],
      [written('controller', 'warn', 'api session activity flush failed', { error: 'ClusterHasNoLeaderError: could not reach the leader ctrl2: timeout' }), 'writes-refused-no-leader'],
      [written('controller', 'warn', 'api session sweep failed', { error: 'ClusterHasNoLeaderError: the cluster has no leader' }), 'writes-refused-no-leader'],
      [written('controller', 'error', 'restored snapshot to initialized system, restart required', { index: 42 }), 'snapshot-restart-required'],
      [written('peers', 'warn', 'peer TLS handshake failed: tls: error decrypting message', { address: 'tls:10.0.0.7:6262', code: 'ERR_SSL_DECRYPTION_FAILED', error: 'x' }), 'peer-tls-failure'],
      [written('peers', 'warn', 'peer TLS handshake failed: x509: certificate signed by unknown authority', { remote: '10.0.0.8', code: 'UNKNOWN_CA', error: 'x' }), 'peer-tls-failure'],
      [written('peers', 'warn', 'peer TLS handshake failed: no certs presented matched the CA for this node', { remote: '10.0.0.8', error: 'x' }), 'peer-tls-failure'],
      [written('peers', 'warn', 'peer connection refused: no certs presented matched the CA for this node', { remote: '10.0.0.9' }), 'peer-tls-failure'],
      [written('cluster', 'warn', 'leadership transfer to preferred leader failed, will try next', { to: 'ctrl3' }), 'preferred-leader-transfer-failed'],
      [written('cluster', 'info', 'no preferred leader peers are connected, retaining leadership'), 'preferred-leader-unavailable'],
      [written('raft', 'error', 'raft node stopped after a failure', { error: 'EIO' }), 'raft-node-failed'],
    ];
    assert.deepEqual(
      real.map(([line]) => ruleIds(outcomes(line)[0])),
      real.map(([, id]) => [id]),
    );
    // Every rule's every condition is met by one of these lines.
    for (const rule of logRules) {
      for (const condition of rule.conditions) assert.ok(real.some(([line]) => JSON.parse(line).msg === condition.msg && JSON.parse(line).component === condition.component), `${rule.id}: ${condition.msg}`);
    }
  });

  it('matches nothing a client, router or peer wrote: the documented texts in fields, in other messages, or in another component', () => {
    const leaderless = 'cluster running without leader for longer than configured threshold';
    const readOnly = 'entering read-only mode';
    const crafted = [
      // A control-port connection whose first frame's type is the alert text, as the router hub logs it now...
      written('routers', 'warn', 'router connection refused', { certificate: 'any-client', remote: '127.0.0.1', reason: refusedFirstFrame(leaderless) }),
      written('routers', 'warn', 'router connection refused', { certificate: 'any-client', remote: '127.0.0.1', reason: refusedFirstFrame(readOnly) }),
      // ...and as it logged it before (the text inside msg).
      written('routers', 'warn', `router connection refused: ${refusedFirstFrame(leaderless)}`, { reason: refusedFirstFrame(leaderless) }),
      written('routers', 'warn', `router connection refused: ${refusedFirstFrame(readOnly)}`, { reason: refusedFirstFrame(readOnly) }),
      // An ext-jwt login whose token header names the error.
      written('auth', 'info', 'ext-jwt authentication failed', { reason: 'invalid', detail: 'algorithm "ClusterHasNoLeaderError" is not accepted' }),
      written('web', 'info', 'request refused', { requestId: 'r2', code: 'INVALID_AUTH', method: 'POST', path: '/edge/client/v1/authenticate', cause: 'invalid: algorithm "ClusterHasNoLeaderError" is not accepted' }),
      // A refused circuit's service name, a router's report reason.
      written('routers', 'warn', 'circuit refused', { routerId: 'r1', service: leaderless, code: 'NO_DIAL_POLICY', reason: `no service policy lets the identity Dial ${leaderless}` }),
      written('routers', 'warn', 'circuit failed', { routerId: 'r1', circuitId: 'c1', reason: 'ClusterHasNoLeaderError: entering read-only mode: different versions detected in cluster' }),
      // The exact text with the wrong component, or as part of a longer msg.
      written('routers', 'warn', leaderless),
      written('cluster', 'warn', `${leaderless} (forged)`),
      written('cluster', 'warn', `forged: ${leaderless}`),
      written('web', 'info', 'request refused', { code: 'CLUSTER_READ_ONLY', cause: 'ClusterHasNoLeaderError: no' }),
      written('agent', 'info', 'agent command failed', { command: 'x', error: 'invalid address "ClusterHasNoLeaderError: x"' }),
      // The peer lines need the peer's id the evaluator counts by.
      written('peers', 'info', 'peer disconnected', { reason: 'connection closed' }),
      // A field that tries to take the logger's own keys is renamed.
      written('auth', 'info', 'ext-jwt authentication failed', { msg: leaderless, component: 'cluster' }),
    ];
    assert.deepEqual(crafted.map((line) => ruleIds(outcomes(line)[0])), crafted.map(() => 'no-rule'));
  });

  it('counts a line that is not a JSON object as malformed', () => {
    assert.deepEqual(outcomes('peer disconnected, said a plain line\n["peer disconnected"]\n').map((outcome) => (outcome.kind === 'malformed' ? outcome.reason : outcome.kind)), ['not-json', 'not-object']);
  });

  it('leaves out a time that is not a date', () => {
    const [outcome] = outcomes('{"time":"yesterday","msg":"raft node stopped after a failure","component":"raft"}\n');
    assert.equal(outcome?.kind, 'matched');
    if (outcome?.kind !== 'matched') return;
    assert.equal(outcome.record.at, undefined);
  });

  it('has one needle per distinct substring, each used by its rules, each found in the lines its conditions accept', () => {
    assert.equal(new Set(table.needles).size, table.needles.length);
    assert.ok(table.needles.includes('peer connected') && table.needles.includes('peer disconnected'));
    for (const rule of logRules) {
      for (const condition of rule.conditions) {
        const values = [condition.msg, ...Object.values(condition.fieldEquals ?? {}), ...Object.values(condition.fieldStartsWith ?? {})];
        assert.ok(values.some((value) => JSON.stringify(value).includes(condition.needle)), `${rule.id}: the needle ${condition.needle} is in what the condition requires`);
      }
    }
    // "peer connected" must not match inside "peer disconnected".
    assert.deepEqual(outcomes('{"msg":"peer disconnected","component":"peers","peerId":"x"}\n').map(ruleIds), [['peer-disconnected-log']]);
  });
});
