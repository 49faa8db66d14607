// Warnings from the leader's raft rate limiter: commands queued without pause, and a concurrency window that
// shrinks because commands time out. Both are about 0 and 250 at rest; bursts of writes are normal.
import { byController, controllerSeries } from './promql-fragments.ts';
import type { AlertRule } from './rule-model.ts';
import { controllerTarget, repeat, series, testCluster } from './testing/test-series.ts';

const of = (controller: 'ctrl1') => ({ cluster: testCluster, controller });

export const rateLimiterQueueSustained: AlertRule = {
  name: 'EdgewardRateLimiterQueueSustained',
  expr: `max by (${byController}) (min_over_time(${controllerSeries('edgeward_raft_rate_limiter_queue_size')}[5m])) > 0`,
  for: '5m',
  detail: ({ label, value }) =>
    `The raft rate limiter of ${label('controller')} (cluster ${label('cluster')}) has held commands at every scrape for more than 10 minutes; the fewest in the last 5 minutes: ${value}.`,
  rationale:
    'The queue is about 0 at rest and empties between bursts of writes. Its minimum over 5 minutes above 0, for 5 minutes, means no scrape in 10 minutes found it empty.',
  tests: [
    {
      name: 'EdgewardRateLimiterQueueSustained fires when the queue never empties for ten minutes',
      interval: '15s',
      series: [
        series('edgeward_raft_rate_limiter_queue_size', controllerTarget('ctrl1'), [...repeat(0, 4), ...repeat(2, 56)]),
        series('edgeward_raft_rate_limiter_queue_size', controllerTarget('ctrl2'), repeat(0, 60)),
      ],
      checks: [
        { at: '10m30s', firing: [] },
        { at: '12m', firing: [{ labels: of('ctrl1'), value: '2' }] },
      ],
    },
    {
      name: 'EdgewardRateLimiterQueueSustained stays silent for bursts that drain',
      interval: '15s',
      series: [
        series('edgeward_raft_rate_limiter_queue_size', controllerTarget('ctrl1'), Array.from({ length: 60 }, (_, step) => (step % 17 === 16 ? 0 : 3))),
      ],
      checks: [
        { at: '8m', firing: [] },
        { at: '14m', firing: [] },
      ],
    },
  ],
};

const shrinkRatio = 0.85;
export const rateLimiterWindowShrinking: AlertRule = {
  name: 'EdgewardRateLimiterWindowShrinking',
  expr: [
    `max by (${byController}) (${controllerSeries('edgeward_raft_rate_limiter_window_size')})`,
    `< ${shrinkRatio} *`,
    `max by (${byController}) (max_over_time(${controllerSeries('edgeward_raft_rate_limiter_window_size')}[10m]))`,
  ].join('\n'),
  for: '2m',
  detail: ({ label, value }) =>
    `The raft rate limiter window of ${label('controller')} (cluster ${label('cluster')}) fell to ${value}, more than 15% below its largest size in the last 10 minutes.`,
  rationale: `The window shrinks by a tenth after every 10 timed-out commands. Below ${shrinkRatio} of its size in the last 10 minutes means at least two shrinks; the window of an idle leader stays where it is, so comparing with the recent maximum (not with 250) resolves once it stops falling.`,
  tests: [
    {
      name: 'EdgewardRateLimiterWindowShrinking fires when the window keeps shrinking',
      interval: '15s',
      series: [series('edgeward_raft_rate_limiter_window_size', controllerTarget('ctrl1'), [...repeat(250, 20), ...repeat(225, 4), ...repeat(202, 4), ...repeat(181, 4), ...repeat(163, 28)])],
      checks: [
        { at: '7m45s', firing: [] },
        { at: '9m', firing: [{ labels: of('ctrl1'), value: '163' }] },
      ],
    },
    {
      name: 'EdgewardRateLimiterWindowShrinking stays silent for a single shrink',
      interval: '15s',
      series: [series('edgeward_raft_rate_limiter_window_size', controllerTarget('ctrl1'), [...repeat(250, 20), ...repeat(225, 60)])],
      checks: [
        { at: '8m', firing: [] },
        { at: '19m', firing: [] },
      ],
    },
  ],
};
