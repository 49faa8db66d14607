// The router's metrics reporter: a message built every reportInterval from the links, the control channel, the
// process's memory and the circuits, sent once intervalAgeThreshold old, queued while no controller is connected.
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { Forwarder } from '../circuits/forwarder.ts';
import type { RouterConfig } from '../config/router-config.ts';
import type { LinkManagerApi } from '../links/link-manager-api.ts';
import type { ControlChannel } from './control-channel.ts';
import type { EdgeSessionPresence } from '../edge/edge-session-presence.ts';
import { MetricsReporter } from './metrics-reporter.ts';
import { buildRouterMetrics } from './router-metrics.ts';

export interface RouterMetricsSources {
  readonly routerId: string;
  readonly linkManager: LinkManagerApi;
  readonly forwarder: Forwarder;
  readonly channel: ControlChannel;
  /** SDK channels and their virtual connections (edge.channel.count, edge.connection.count). */
  readonly edgeSessions?: Pick<EdgeSessionPresence, 'figures'>;
}

export function routerMetricsReporter(config: RouterConfig, sources: RouterMetricsSources, clock: Clock, logger: Logger): MetricsReporter {
  const { channel } = sources;
  return new MetricsReporter({
    reportIntervalMs: config.metrics.reportInterval,
    messageQueueSize: config.metrics.messageQueueSize,
    intervalAgeThresholdMs: config.metrics.intervalAgeThreshold,
    clock,
    logger,
    build: (now, dropped) => {
      const memory = process.memoryUsage();
      return buildRouterMetrics({
        routerId: sources.routerId,
        now,
        links: sources.linkManager.links(),
        ctrlLatencyMs: channel.latencyMs,
        ctrlConnected: channel.connected,
        heapUsedBytes: memory.heapUsed,
        rssBytes: memory.rss,
        metricsDropped: dropped,
        circuits: sources.forwarder.stats(),
        ...(sources.edgeSessions ? { edge: sources.edgeSessions.figures() } : {}),
      });
    },
    send: (message) => channel.send(message),
  });
}
