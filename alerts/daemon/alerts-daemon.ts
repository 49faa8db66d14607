// The alerts daemon: the pure evaluator with its drivers around it. Files (chokidar, one follower per file), polls
// (health and metrics of every controller), a one-second tick, delivery to every Alertmanager, the state file
// (saved at most once a second and at stop) and the daemon's own /metrics, /health and /api/v1/status.

import { readFile } from 'node:fs/promises';
import type { HostPort } from '../../common/config/address.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { AlertsConfig } from '../config/alerts-config.ts';
import { DeliveryQueue } from '../core/delivery/delivery-queue.ts';
import { Evaluator } from '../core/evaluator/evaluator.ts';
import { logNeedleTable } from '../core/matching/log-line.ts';
import { logRules } from '../core/rules/alert-rules.ts';
import { AlertDelivery } from './alert-delivery.ts';
import { AlertEngine } from './alert-engine.ts';
import { ControllerPolls } from './controller-polls.ts';
import { DaemonMetrics } from './daemon-metrics.ts';
import { daemonStatus } from './daemon-status.ts';
import { EventConsumer } from './event-consumer.ts';
import { FileTailer } from './file-tailer.ts';
import type { FollowedFile } from './file-tailer.ts';
import { LogConsumer } from './log-consumer.ts';
import { StateFile } from './state-file.ts';
import { startStatusServer } from './status-server.ts';

/** How often the evaluator is ticked and the state saved when it changed. */
export const tickInterval = 1000;
/** Bytes read from a file at a time. */
export const readChunkBytes = 1024 * 1024;

export interface AlertsDaemonDeps {
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface AlertsDaemon {
  /** Where /metrics and /health listen (the real port when the config says 0). */
  readonly address: HostPort;
  readonly metrics: DaemonMetrics;
  /** Stops everything, then saves the state. */
  stop(): Promise<void>;
}

export async function startAlertsDaemon(config: AlertsConfig, deps: AlertsDaemonDeps): Promise<AlertsDaemon> {
  const { clock, logger } = deps;
  const caPem = config.caBundle === undefined ? undefined : await readFile(config.caBundle, 'utf8').catch((error: Error) => {
    throw new Error(`cannot read caBundle ${config.caBundle}: ${error.message}`);
  });
  const stateFile = new StateFile(config.stateDir, logger);
  const saved = await stateFile.load();

  const evaluator = new Evaluator(
    {
      controllers: config.controllers.map((controller) => controller.id),
      commitLagControllers: config.controllers.filter((controller) => controller.eventsFile !== undefined).map((controller) => controller.id),
      preferredLeaders: config.controllers.filter((controller) => controller.preferredLeader).map((controller) => controller.id),
      rules: config.rules,
    },
    saved?.evaluator,
  );
  const queue = new DeliveryQueue({ ...config.alertmanager }, saved?.delivery);
  const metrics = new DaemonMetrics();

  const delivery = new AlertDelivery(queue, { urls: config.alertmanager.urls, timeout: config.alertmanager.timeout }, { clock, logger, metrics });
  const engine = new AlertEngine(evaluator, queue, { cluster: config.cluster, runbookBaseUrl: config.runbookBaseUrl }, {
    clock,
    metrics,
    onQueued: (changes) => {
      for (const change of changes) {
        logger.info(change.change === 'firing' ? 'alert firing' : 'alert resolved', { alertname: change.alert, ...change.labels, detail: change.detail });
      }
      delivery.kick();
    },
  });

  const table = logNeedleTable(logRules);
  const files: FollowedFile[] = config.controllers.flatMap((controller) => [
    ...(controller.logFile === undefined ? [] : [{ path: controller.logFile, consumer: new LogConsumer(controller.id, table, config.files.maxLineBytes, engine) }]),
    ...(controller.eventsFile ?? []).map((path) => ({ path, consumer: new EventConsumer(controller.id, config.files.maxLineBytes, engine) })),
  ]);
  const tailer = new FileTailer(files, saved?.files ?? {}, { initialPosition: config.files.initialPosition, recheckInterval: config.files.recheckInterval, chunkBytes: readChunkBytes, logger });
  const polls = new ControllerPolls(config.controllers, config.rules, caPem, { sink: engine, metrics, logger });

  const server = await startStatusServer(
    config.listen,
    metrics,
    () => ({ firing: evaluator.firing().length, deliveryQueue: queue.waiting(), files: Object.keys(tailer.positions()).length }),
    () => daemonStatus(config, evaluator.firing(), evaluator.commitLag(clock.now()), evaluator.snapshot().health, clock.now()),
  );

  // The state is saved when it differs from what was saved last (file offsets move on lines that match nothing):
  // at most once per tick, and at stop. Saves run one after another; a tick skips saving while one is running.
  let lastSaved = '';
  let saves = Promise.resolve();
  let saving = false;
  const save = (): Promise<void> =>
    (saves = saves.then(async () => {
      const body = { files: tailer.positions(), evaluator: evaluator.snapshot(), delivery: queue.snapshot() };
      const text = JSON.stringify(body);
      if (text === lastSaved) return;
      try {
        await stateFile.save({ version: 1, savedAt: new Date(clock.now()).toISOString(), ...body });
        lastSaved = text;
      } catch (error) {
        logger.error('saving the state file failed; trying again', { path: stateFile.path, error: (error as Error).message });
      }
    }));
  const tick = setInterval(() => {
    engine.observe({ kind: 'tick', now: clock.now() });
    for (const [controller, lag] of Object.entries(evaluator.commitLag(clock.now()))) metrics.setCommitLag(controller, lag.entries, lag.seconds);
    if (!saving) {
      saving = true;
      void save().finally(() => (saving = false));
    }
  }, tickInterval);

  try {
    await tailer.start();
  } catch (error) {
    clearInterval(tick);
    await server.close();
    throw error;
  }
  polls.start();
  delivery.kick();
  logger.info('alerts daemon started', {
    cluster: config.cluster,
    controllers: config.controllers.map((controller) => controller.id),
    files: files.length,
    alertmanagers: config.alertmanager.urls,
    listen: `${server.address.host}:${server.address.port}`,
    resumed: saved !== undefined,
  });

  let stopping: Promise<void> | undefined;
  return {
    address: server.address,
    metrics,
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(tick);
        await polls.stop();
        await tailer.stop();
        await delivery.stop();
        await save();
        await server.close();
        logger.info('alerts daemon stopped', { state: stateFile.path });
      })()),
  };
}
