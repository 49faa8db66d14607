// Warnings from the leader's raft rate limiter: commands queued without pause, and a concurrency window that
// shrinks because commands time out. Both are about 0 and 250 at rest; bursts of writes are normal.
import { durationMs, monitoringMixin, promDuration } from '../mixin/monitoring-mixin.ts';
import { byController, controllerSeries, inWords } from './promql-fragments.ts';
import type { AlertRule } from './rule-model.ts';
import { controllerTarget, repeat, series, testCluster } from './testing/test-series.ts';

const of = (controller: 'ctrl1') => ({ cluster: testCluster, controller });

const { sustainedFor: queueSustainedFor } = monitoringMixin.rateLimiterQueue;
/** Half the sustained time is the window whose minimum must stay above 0, the other half the rule's `for:`. */
const queueHalf = promDuration(durationMs(queueSustainedFor) / 2);

export const rateLimiterQueueSustained: AlertRule = {
  name: 'EdgewardRateLimiterQueueSustained',
  expr: `max by (${byController}) (min_over_time(${controllerSeries('edgeward_raft_rate_limiter_queue_size')}[${queueHalf}])) > 0`,
  for: queueHalf,
  detail: ({ label, value }) =>
    `The raft rate limiter of ${label('controller')} (cluster ${label('cluster')}) has held commands at every scrape for more than ${inWords(queueSustainedFor)}; the fewest in the last ${inWords(queueHalf)}: ${value}.`,
  rationale: `The queue is about 0 at rest and empties between bursts of writes. Its minimum over ${inWords(queueHalf)} above 0, for ${inWords(queueHalf)}, means no scrape in ${inWords(queueSustainedFor)} found it empty.`,
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

const { shrinkRatio, window: shrinkWindow, for: shrinkFor } = monitoringMixin.rateLimiterWindow;
export const rateLimiterWindowShrinking: AlertRule = {
  name: 'EdgewardRateLimiterWindowShrinking',
  expr: [
    `max by (${byController}) (${controllerSeries('edgeward_raft_rate_limiter_window_size')})`,
    `< ${shrinkRatio} *`,
    `max by (${byController}) (max_over_time(${controllerSeries('edgeward_raft_rate_limiter_window_size')}[${shrinkWindow}]))`,
  ].join('\n'),
  for: shrinkFor,
  detail: ({ label, value }) =>
    `The raft rate limiter window of ${label('controller')} (cluster ${label('cluster')}) fell to ${value}, more than ${Math.round((1 - shrinkRatio) * 100)}% below its largest size in the last ${inWords(shrinkWindow)}.`,
  rationale: `The window shrinks by a tenth after every 10 timed-out commands. Below ${shrinkRatio} of its size in the last ${inWords(shrinkWindow)} means at least two shrinks; the window of an idle leader stays where it is, so comparing with the recent maximum (not with 250) resolves once it stops falling.`,
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
