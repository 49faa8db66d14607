import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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

describe('matchLogLine', () => {
  it('matches a rule on its msg substring and takes the time, peerId and msg', () => {
    const [outcome] = outcomes('{"level":"info","time":"2026-11-21T23:50:00.084Z","msg":"peer disconnected","component":"peers","controllerId":"ctrl1","peerId":"ctrl2","reason":"connection closed"}\n');
    assert.deepEqual(outcome, {
      kind: 'matched',
      rules: [logRules.find((rule) => rule.id === 'peer-disconnected-log')],
      record: { at: Date.parse('2026-11-21T23:50:00.084Z'), peerId: 'ctrl2', msg: 'peer disconnected' },
    });
  });

  it('needs the substring in msg, not elsewhere in the line, for msg rules', () => {
    assert.deepEqual(outcomes('{"msg":"request served","path":"/peer disconnected"}\n').map(ruleIds), ['no-rule']);
  });

  it('matches ClusterHasNoLeaderError anywhere, and CLUSTER_NO_LEADER only as the code of a refused request', () => {
    assert.deepEqual(
      outcomes(
        [
          '{"msg":"agent command failed","error":"ClusterHasNoLeaderError: no leader"}',
          '{"msg":"request refused","code":"CLUSTER_NO_LEADER","method":"POST"}',
          '{"msg":"request served","note":"CLUSTER_NO_LEADER"}',
          '{"msg":"request refused","code":"CLUSTER_READ_ONLY","cause":"not CLUSTER_NO_LEADER"}',
        ].join('\n') + '\n',
      ).map(ruleIds),
      [['writes-refused-no-leader'], ['writes-refused-no-leader'], 'no-rule', 'no-rule'],
    );
  });

  it('counts a line that is not a JSON object as malformed', () => {
    assert.deepEqual(outcomes('peer disconnected, said a plain line\n["peer disconnected"]\n').map((outcome) => (outcome.kind === 'malformed' ? outcome.reason : outcome.kind)), ['not-json', 'not-object']);
  });

  it('leaves out a time that is not a date, and cuts a long msg', () => {
    const [outcome] = outcomes(`{"time":"yesterday","msg":"raft node stopped after a failure ${'x'.repeat(300)}"}\n`);
    assert.equal(outcome?.kind, 'matched');
    if (outcome?.kind !== 'matched') return;
    assert.equal(outcome.record.at, undefined);
    assert.equal(outcome.record.msg?.length, 201);
  });

  it('has one needle per distinct substring, each used by its rules', () => {
    assert.equal(new Set(table.needles).size, table.needles.length);
    assert.ok(table.needles.includes('peer connected') && table.needles.includes('peer disconnected'));
    // "peer connected" must not match inside "peer disconnected".
    assert.deepEqual(outcomes('{"msg":"peer disconnected","peerId":"x"}\n').map(ruleIds), [['peer-disconnected-log']]);
  });
});
