import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblems } from '../../common/config/format-problems.ts';
import type { Infer } from '../../common/config/schema.ts';
import { parseAlertsConfig } from './alerts-config.ts';
import type { AlertsConfig, ConfigProblem } from './alerts-config.ts';
import type { alertsSchema } from './alerts-config-schema.ts';

const file = '/etc/edgeward/alerts.yml';

// The hand-written type and the schema's inferred type must describe the same values.
type Inferred = Infer<typeof alertsSchema>;
type SameShape = [AlertsConfig] extends [Inferred] ? ([Inferred] extends [AlertsConfig] ? true : false) : false;
const typeMatchesSchema: SameShape = true;

/** A small valid file; line numbers are 1-based positions in this list. */
const minimal = [
  'cluster: prod', //                                                            1
  'controllers:', //                                                             2
  '  - id: ctrl1', //                                                            3
  '    logFile: logs/ctrl1.log', //                                              4
  '    eventsFile: events/ctrl1.jsonl', //                                       5
  '    healthUrl: https://ctrl1:1280/health-checks/controller/raft', //           6
  '    metricsUrl: https://ctrl1:1280/metrics', //                               7
  '  - id: ctrl2', //                                                            8
  '    logFile: /var/log/edgeward/ctrl2.log', //                                 9
  'caBundle: pki/ca-bundle.pem', //                                              10
  'alertmanager:', //                                                            11
  '  urls: [http://127.0.0.1:9093]', //                                          12
  'stateDir: state', //                                                          13
];

function parse(lines: readonly string[], env: Record<string, string | undefined> = {}) {
  return parseAlertsConfig(lines.join('\n'), { file, env });
}

function where(problems: readonly ConfigProblem[]): [number | undefined, string, string][] {
  return problems.map((problem) => [problem.line, problem.path, problem.rule]);
}

describe('parseAlertsConfig: a valid file', () => {
  it('fills every default, makes paths absolute and parses durations to milliseconds', () => {
    const { config, problems } = parse(minimal);
    assert.deepEqual(problems, []);
    assert.ok(typeMatchesSchema);
    const expected: AlertsConfig = {
      cluster: 'prod',
      controllers: [
        {
          id: 'ctrl1',
          logFile: '/etc/edgeward/logs/ctrl1.log',
          eventsFile: ['/etc/edgeward/events/ctrl1.jsonl'],
          healthUrl: 'https://ctrl1:1280/health-checks/controller/raft',
          metricsUrl: 'https://ctrl1:1280/metrics',
          preferredLeader: false,
        },
        { id: 'ctrl2', logFile: '/var/log/edgeward/ctrl2.log', preferredLeader: false },
      ],
      caBundle: '/etc/edgeward/pki/ca-bundle.pem',
      alertmanager: { urls: ['http://127.0.0.1:9093'], resendInterval: 60_000, timeout: 10_000, retryInitialBackoff: 500, retryMaxBackoff: 30_000, resolvedRetention: 86_400_000 },
      stateDir: '/etc/edgeward/state',
      listen: { host: '127.0.0.1', port: 9105 },
      runbookBaseUrl: 'http://127.0.0.1:9110/runbooks',
      files: { initialPosition: 'end', recheckInterval: 1000, maxLineBytes: 1_048_576 },
      rules: {
        // The monitoring mixin's values (alerts/mixin/monitoring-mixin.ts), which the Prometheus rules use too.
        leaderlessTolerance: 60_000,
        readOnlyFor: 300_000,
        noHealthyFor: 60_000,
        quorumLostFor: 60_000,
        peerFlapping: { count: 3, window: 600_000, pairWindow: 2000 },
        leadershipChurn: { count: 4, window: 900_000, pairWindow: 10_000 },
        queueSustainedFor: 600_000,
        windowShrinkingFor: 120_000,
        peerLatency: { factor: 3, floor: 10, sustainedFor: 300_000, minHeartbeats: 3, baselineIntervals: 20 },
        commitLag: { entries: 100, behindFor: 60_000, sustainedFor: 300_000 },
        oneShotHold: 900_000,
        healthPollInterval: 5000,
        healthPollTimeout: 3000,
        metricsPollInterval: 15_000,
        metricsPollTimeout: 5000,
        metricsStaleAfter: 45_000,
      },
      log: { level: 'info' },
    };
    assert.deepEqual(config, expected);
  });

  it('takes a list of event files, port 0 for listen, and ${VAR} from the environment', () => {
    const lines = minimal.map((line) => line.replace('events/ctrl1.jsonl', '[a.jsonl, /abs/b.jsonl]').replace('prod', '${CLUSTER}'));
    const { config, problems } = parse([...lines, 'listen: 127.0.0.1:0'], { CLUSTER: 'eu-1' });
    assert.deepEqual(problems, []);
    assert.equal(config?.cluster, 'eu-1');
    assert.deepEqual(config?.controllers[0]?.eventsFile, ['/etc/edgeward/a.jsonl', '/abs/b.jsonl']);
    assert.deepEqual(config?.listen, { host: '127.0.0.1', port: 0 });
  });
});

describe('parseAlertsConfig: problems', () => {
  it('reports every problem at once, each with its line, key path and rule', () => {
    const { config, problems } = parse([
      'cluster: prod', //                                      1
      'controllers:', //                                       2
      '  - id: ctrl1', //                                      3
      '    logFile: logs/ctrl1.log', //                        4
      '    healthUrl: ftp://ctrl1/health', //                   5
      '  - id: ctrl1', //                                      6
      '    logFile: logs/ctrl1.log', //                        7
      '    logfile: typo.log', //                              8
      '  - id: ctrl3', //                                      9
      'alertmanager:', //                                      10
      '  urls: []', //                                         11
      '  retryInitialBackoff: 1m', //                          12
      '  retryMaxBackoff: 10s', //                             13
      'stateDir: state', //                                    14
      'listen: localhost', //                                  15
      'rules:', //                                             16
      '  peerFlapping: { count: 1, window: 1s }', //           17
      '  metricsPollTimeout: 20s', //                          18
      '  oneShotHold: soon', //                                19
      '  noHealthyFor: 2s', //                                 20
      'files:', //                                             21
      '  initialPosition: middle', //                          22
    ]);
    assert.equal(config, undefined);
    assert.deepEqual(where(problems), [
      [5, 'controllers[0].healthUrl', 'url'],
      [6, 'controllers[1].id', 'unique-id'],
      [7, 'controllers[1].logFile', 'unique-file'],
      [8, 'controllers[1].logfile', 'unknown-key'],
      [9, 'controllers[2]', 'nothing-to-watch'],
      [11, 'alertmanager.urls', 'min-items'],
      [12, 'alertmanager.retryInitialBackoff', 'min-not-above-max'],
      [15, 'listen', 'address'],
      [17, 'rules.peerFlapping.count', 'min'],
      [17, 'rules.peerFlapping.window', 'min'],
      [18, 'rules.metricsPollTimeout', 'timeout-within-interval'],
      [19, 'rules.oneShotHold', 'duration'],
      [20, 'rules.noHealthyFor', 'window-above-interval'],
      [22, 'files.initialPosition', 'enum'],
    ]);
    assert.equal(problems.find((problem) => problem.rule === 'unknown-key')?.message, 'unknown key "logfile" (did you mean "logFile"?)');
    assert.equal(problems.find((problem) => problem.rule === 'window-above-interval')?.severity, 'warning');
  });

  it('requires the cluster name, controllers, alertmanager and stateDir', () => {
    const { problems } = parse(['listen: 127.0.0.1:9105']);
    assert.deepEqual(
      problems.map((problem) => [problem.path, problem.rule]),
      [
        ['cluster', 'required'],
        ['controllers', 'required'],
        ['alertmanager', 'required'],
        ['stateDir', 'required'],
      ],
    );
  });

  it('requires caBundle once a controller URL is https', () => {
    const { problems } = parse(minimal.filter((line) => !line.startsWith('caBundle')));
    assert.deepEqual(where(problems), [[undefined, 'caBundle', 'required']]);
  });

  it('formats problems like controller validate: file, line, severity, path, message, rule', () => {
    const { problems } = parse([...minimal.slice(0, 12), '  timeout: 0', ...minimal.slice(12)]);
    assert.equal(formatProblems(problems, 'alerts.yml'), 'alerts.yml:13: error: alertmanager.timeout: must be at least 100ms (rule: min)');
  });

  it('reports a YAML syntax error with its line', () => {
    const { config, problems } = parse(['cluster: prod', 'controllers: [', '  - id']);
    assert.equal(config, undefined);
    assert.ok(problems.length > 0 && problems.every((problem) => problem.severity === 'error' && problem.line !== undefined));
  });
});
