// The alerts daemon's YAML file as a schema: every key with its default and bounds, and the relations between keys.
// The schema is ours alone, so unknown keys are errors. docs/alerts.md documents each key.

import { isAbsolute, resolve as resolvePath } from 'node:path';
import { parseHostPort } from '../../common/config/address.ts';
import { formatKeyPath } from '../../common/config/key-path.ts';
import { s } from '../../common/config/schema.ts';
import type { HostPort, Loose, RuleFinding, SchemaContext } from '../../common/config/schema.ts';
import { defaultRunbookBase } from '../catalogue/alert-catalogue.ts';
import { monitoringMixin } from '../mixin/monitoring-mixin.ts';

// The rules' defaults are the monitoring mixin's numbers, the ones the generated Prometheus rules use too.
const mixin = monitoringMixin;

/** `http://` or `https://` URL text, kept as written. */
function url(what: string) {
  return s.string({ minLength: 1 }).rule((value): RuleFinding[] => {
    if (typeof value !== 'string') return [];
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      return [{ rule: 'url', message: `must be an http:// or https:// URL (${what})`, value }];
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return [{ rule: 'url', message: `must be an http:// or https:// URL, not ${parsed.protocol}`, value }];
    return [];
  });
}

/** One path or a list of paths, made absolute like `s.path()`. */
const pathOrPaths = s
  .any()
  .rule((value): RuleFinding[] => {
    if (typeof value === 'string') return value === '' ? [{ rule: 'path', message: 'must not be empty', value }] : [];
    if (!Array.isArray(value)) return [{ rule: 'type', message: 'must be a path or a list of paths', value }];
    if (value.length === 0) return [{ rule: 'min-items', message: 'must not be empty' }];
    return value.flatMap((item, index): RuleFinding[] =>
      typeof item === 'string' && item !== '' ? [] : [{ path: [index], rule: 'path', message: 'must be a non-empty path', value: item }],
    );
  })
  .transform((value, ctx: SchemaContext): readonly string[] => {
    const list = typeof value === 'string' ? [value] : (value as string[]);
    return list.map((item) => (isAbsolute(item) ? item : resolvePath(ctx.baseDir, item)));
  });

/** `host:port`; unlike a web bind point, port 0 (any free port) is allowed, for tests. */
const listenSchema = s
  .string({ minLength: 1 })
  .rule((value): RuleFinding[] => {
    if (typeof value !== 'string') return [];
    const parsed = parseHostPort(value.replace(/:0$/, ':1'));
    return parsed.ok ? [] : [{ rule: 'address', message: `"${value}": ${parsed.message}`, value }];
  })
  .transform((value): HostPort => {
    const zero = value.endsWith(':0');
    const parsed = parseHostPort(zero ? value.replace(/:0$/, ':1') : value);
    if (!parsed.ok) throw new Error(`listen address checked above: ${value}`);
    return zero ? { ...parsed.value, port: 0 } : parsed.value;
  });

const controllerSchema = s
  .object(
    {
      id: s.string({ pattern: /^[A-Za-z0-9][A-Za-z0-9._-]*$/, patternMessage: 'must be a controller id: letters, digits, ".", "_" and "-"' }).required(),
      logFile: s.path(),
      eventsFile: pathOrPaths,
      healthUrl: url('the controller\'s /health-checks/controller/raft'),
      metricsUrl: url('the controller\'s /metrics'),
      preferredLeader: s.boolean().default(false),
    },
    { label: 'controller' },
  )
  .rule((controller): RuleFinding[] =>
    controller.logFile === undefined && controller.eventsFile === undefined && controller.healthUrl === undefined && controller.metricsUrl === undefined
      ? [{ rule: 'nothing-to-watch', message: 'needs at least one of logFile, eventsFile, healthUrl, metricsUrl' }]
      : [],
  );

const alertmanagerSchema = s
  .object({
    urls: s.array(url('Alertmanager\'s base URL, without /api/v2/alerts'), { minItems: 1, maxItems: 16 }).required(),
    resendInterval: s.duration({ min: '1s', max: '1h' }).default('1m'),
    timeout: s.duration({ min: '100ms', max: '5m' }).default('10s'),
    retryInitialBackoff: s.duration({ min: '10ms', max: '1m' }).default('500ms'),
    retryMaxBackoff: s.duration({ min: '100ms', max: '1h' }).default('30s'),
    resolvedRetention: s.duration({ min: '1m', max: '720h' }).default('24h'),
  })
  .rule((am): RuleFinding[] =>
    isAbove(am.retryInitialBackoff, am.retryMaxBackoff)
      ? [{ path: ['retryInitialBackoff'], rule: 'min-not-above-max', message: 'must not be greater than retryMaxBackoff', value: am.retryInitialBackoff }]
      : [],
  );

const filesSchema = s.object({
  initialPosition: s.string({ enum: ['end', 'start'] }).default('end'),
  recheckInterval: s.duration({ min: '100ms', max: '1m' }).default('1s'),
  maxLineBytes: s.integer({ min: 1024, max: 64 * 1024 * 1024 }).default(1024 * 1024),
});

export const rulesSchema = s
  .object({
    leaderlessTolerance: s.duration({ min: '1s', max: '1h' }).default(mixin.leaderless.for),
    readOnlyFor: s.duration({ min: 0, max: '24h' }).default(mixin.readOnly.for),
    noHealthyFor: s.duration({ min: '1s', max: '1h' }).default(mixin.noControllerHealthy.for),
    quorumLostFor: s.duration({ min: '1s', max: '1h' }).default(mixin.quorumLost.for),
    peerFlapping: s
      .object({
        count: s.integer({ min: 2, max: 1000 }).default(mixin.peerFlapping.count),
        window: s.duration({ min: '10s', max: '24h' }).default(mixin.peerFlapping.window),
        pairWindow: s.duration({ min: 0, max: '1m' }).default('2s'),
      })
      .default({}),
    leadershipChurn: s
      .object({
        count: s.integer({ min: 2, max: 1000 }).default(mixin.leadershipChurn.count),
        window: s.duration({ min: '10s', max: '24h' }).default(mixin.leadershipChurn.window),
        pairWindow: s.duration({ min: 0, max: '5m' }).default('10s'),
      })
      .default({}),
    queueSustainedFor: s.duration({ min: '1s', max: '1h' }).default(mixin.rateLimiterQueue.sustainedFor),
    windowShrinkingFor: s.duration({ min: '1s', max: '1h' }).default(mixin.rateLimiterWindow.for),
    peerLatency: s
      .object({
        factor: s.number({ min: 1.1, max: 1000 }).default(mixin.peerLatency.factor),
        floor: s.duration({ min: 0, max: '1m' }).default(mixin.peerLatency.floor),
        sustainedFor: s.duration({ min: 0, max: '1h' }).default(mixin.peerLatency.sustainedFor),
        minHeartbeats: s.integer({ min: 1, max: 100_000 }).default(3),
        baselineIntervals: s.integer({ min: 3, max: 1000 }).default(20),
      })
      .default({}),
    commitLag: s
      .object({
        entries: s.integer({ min: 1, max: 1_000_000_000 }).default(mixin.commitLag.entries),
        behindFor: s.duration({ min: '1s', max: '24h' }).default(mixin.commitLag.behindFor),
        sustainedFor: s.duration({ min: 0, max: '24h' }).default(mixin.commitLag.sustainedFor),
      })
      .default({}),
    oneShotHold: s.duration({ min: '10s', max: '24h' }).default('15m'),
    healthPollInterval: s.duration({ min: '100ms', max: '10m' }).default('5s'),
    healthPollTimeout: s.duration({ min: '100ms', max: '1m' }).default('3s'),
    metricsPollInterval: s.duration({ min: '1s', max: '10m' }).default('15s'),
    metricsPollTimeout: s.duration({ min: '100ms', max: '1m' }).default('5s'),
    metricsStaleAfter: s.duration({ min: '1s', max: '1h' }),
  })
  .rule((rules): RuleFinding[] => {
    const findings: RuleFinding[] = [];
    if (isAbove(rules.healthPollTimeout, rules.healthPollInterval)) {
      findings.push({ path: ['healthPollTimeout'], rule: 'timeout-within-interval', message: 'must not be greater than healthPollInterval', value: rules.healthPollTimeout });
    }
    if (isAbove(rules.metricsPollTimeout, rules.metricsPollInterval)) {
      findings.push({ path: ['metricsPollTimeout'], rule: 'timeout-within-interval', message: 'must not be greater than metricsPollInterval', value: rules.metricsPollTimeout });
    }
    if (isAbove(rules.metricsPollInterval, rules.metricsStaleAfter)) {
      findings.push({ path: ['metricsStaleAfter'], rule: 'stale-after-interval', message: 'must be at least metricsPollInterval, or every poll is stale', value: rules.metricsStaleAfter });
    }
    if (isAbove(rules.healthPollInterval, rules.noHealthyFor)) {
      findings.push({ path: ['noHealthyFor'], rule: 'window-above-interval', message: 'is shorter than healthPollInterval: one failed poll round pages', severity: 'warning', value: rules.noHealthyFor });
    }
    if (isAbove(rules.metricsPollInterval, rules.quorumLostFor)) {
      findings.push({ path: ['quorumLostFor'], rule: 'window-above-interval', message: 'is shorter than metricsPollInterval: one poll pages', severity: 'warning', value: rules.quorumLostFor });
    }
    return findings;
  })
  // Three missed polls before a controller's metrics stop counting, unless set.
  .transform((rules) => ({ ...rules, metricsStaleAfter: rules.metricsStaleAfter ?? 3 * rules.metricsPollInterval }));

export const logLevels = ['debug', 'info', 'warn', 'error'] as const;

export const alertsSchema = s
  .object({
    cluster: s.string({ pattern: /^\S(.*\S)?$/, patternMessage: 'must be a name without leading or trailing spaces' }).describe('the cluster label on every alert').required(),
    controllers: s.array(controllerSchema, { minItems: 1, maxItems: 64 }).required(),
    caBundle: s.path(),
    alertmanager: alertmanagerSchema.required(),
    stateDir: s.path().describe('where offsets and pending alerts are kept across restarts').required(),
    listen: listenSchema.default('127.0.0.1:9105'),
    runbookBaseUrl: s.string({ minLength: 1 }).default(defaultRunbookBase),
    files: filesSchema.default({}),
    rules: rulesSchema.default({}),
    log: s.object({ level: s.string({ enum: logLevels }).default('info'), file: s.path() }).default({}),
  })
  .rule((config): RuleFinding[] => {
    const findings: RuleFinding[] = [];
    const controllers = (config.controllers ?? []).filter((controller) => controller !== undefined);
    const ids = new Map<string, number>();
    const files = new Map<string, string>();
    (config.controllers ?? []).forEach((controller, index) => {
      if (!controller) return;
      if (controller.id !== undefined) {
        if (ids.has(controller.id)) findings.push({ path: ['controllers', index, 'id'], rule: 'unique-id', message: `"${controller.id}" is also controllers[${ids.get(controller.id)}].id`, value: controller.id });
        else ids.set(controller.id, index);
      }
      const paths: [string, (string | number)[]][] = [];
      if (controller.logFile !== undefined) paths.push([controller.logFile, ['logFile']]);
      (controller.eventsFile ?? []).forEach((file, item) => {
        if (file !== undefined) paths.push([file, controller.eventsFile!.length === 1 ? ['eventsFile'] : ['eventsFile', item]]);
      });
      for (const [file, at] of paths) {
        const where = formatKeyPath(['controllers', index, ...at]);
        if (files.has(file)) findings.push({ path: ['controllers', index, ...at], rule: 'unique-file', message: `${file} is also ${files.get(file)}: each file is tailed once`, value: file });
        else files.set(file, where);
      }
    });
    const https = controllers.some((controller) => [controller.healthUrl, controller.metricsUrl].some((value) => value?.startsWith('https:')));
    if (https && config.caBundle === undefined) {
      findings.push({ path: ['caBundle'], rule: 'required', message: 'is required: a controller URL is https (the PEM bundle that signs the controllers\' certificates)' });
    }
    return findings;
  });

function isAbove(a: Loose<number> | undefined, b: Loose<number> | undefined): boolean {
  return a !== undefined && b !== undefined && a > b;
}
