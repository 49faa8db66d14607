import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatProblem, formatProblems } from './format-problems.ts';

describe('formatProblems', () => {
  it('writes one compiler-style line per problem', () => {
    const text = formatProblems(
      [
        { severity: 'error', path: 'cluster.electionTimeout', line: 12, rule: 'election-above-heartbeat', message: 'must be greater than heartbeatTimeout (200ms)', value: 100 },
        { severity: 'warning', path: 'events.log.subscriptions[0].type', line: 30, rule: 'unknown-type', message: 'unknown subscription type "metric" (ignored)' },
      ],
      '/etc/edgeward/ctrl.yml',
    );
    assert.equal(
      text,
      [
        '/etc/edgeward/ctrl.yml:12: error: cluster.electionTimeout: must be greater than heartbeatTimeout (200ms) (rule: election-above-heartbeat)',
        '/etc/edgeward/ctrl.yml:30: warning: events.log.subscriptions[0].type: unknown subscription type "metric" (ignored) (rule: unknown-type)',
      ].join('\n'),
    );
  });

  it('leaves out the line and the path when there are none', () => {
    assert.equal(formatProblem({ severity: 'error', path: 'v', rule: 'required', message: 'is required' }, 'ctrl.yml'), 'ctrl.yml: error: v: is required (rule: required)');
    assert.equal(
      formatProblem({ severity: 'error', path: '', line: 3, rule: 'yaml-syntax', message: 'Map keys must be unique (DUPLICATE_KEY)' }, 'ctrl.yml'),
      'ctrl.yml:3: error: Map keys must be unique (DUPLICATE_KEY) (rule: yaml-syntax)',
    );
  });

  it('writes nothing for no problems', () => {
    assert.equal(formatProblems([], 'ctrl.yml'), '');
  });
});
