// The log lines of transit backpressure, throttled: under a steadily slow next hop a link may pause and resume many
// times a second, so each link's pause is logged at most once per interval (with how many pauses went unlogged), and
// its resume only when that pause was logged. The counter edgeward_router_circuit_link_read_pauses counts them all.
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { PausableLink, TransitEvents, TransitMarks } from './transit-backpressure.ts';

/** At most one `link reading paused` line per link per minute. */
export const pauseLogIntervalMs = 60_000;

interface LinkLogState {
  lastLoggedAt: number;
  unlogged: number;
  episodeLogged: boolean;
}

export function throttledTransitLog(logger: Logger, clock: Clock, marks: TransitMarks, intervalMs = pauseLogIntervalMs): TransitEvents {
  const states = new WeakMap<PausableLink, LinkLogState>();
  return {
    paused(link, queuedBytes) {
      const now = clock.now();
      const state = states.get(link);
      if (state && now - state.lastLoggedAt < intervalMs) {
        state.unlogged++;
        state.episodeLogged = false;
        return;
      }
      logger.info('link reading paused: forwarded bytes over the high-water mark', {
        linkId: link.id,
        queuedBytes,
        highWaterBytes: marks.highWaterBytes,
        ...(state && state.unlogged > 0 ? { unloggedPauses: state.unlogged } : {}),
      });
      states.set(link, { lastLoggedAt: now, unlogged: 0, episodeLogged: true });
    },
    resumed(link, queuedBytes) {
      const state = states.get(link);
      if (!state?.episodeLogged) return;
      state.episodeLogged = false;
      logger.info('link reading resumed: forwarded bytes under the low-water mark', { linkId: link.id, queuedBytes, lowWaterBytes: marks.lowWaterBytes });
    },
  };
}
