// The driver of background index builds (server/store/slice-scheduler.ts): slices run from setImmediate, after the I/O
// callbacks already waiting, so requests and raft messages are served between them. Within one turn of the event loop
// slices run one after another until sliceTurnMs has passed (then the rest wait for the next turn): one slice a turn
// left a 1M-row build (~850 slices) crawling behind a steady stream of requests.
import type { SliceScheduler } from '../../store/slice-scheduler.ts';

/** How long the slices of one event-loop turn may run, at least one slice. */
export const sliceTurnMs = 10;

const waiting: (() => void)[] = [];
let armed = false;

export const slicesOnImmediate: SliceScheduler = (step) => {
  waiting.push(step);
  arm();
};

function arm(): void {
  if (armed) return;
  armed = true;
  setImmediate(runTurn);
}

function runTurn(): void {
  armed = false;
  const until = performance.now() + sliceTurnMs;
  do {
    const step = waiting.shift()!;
    try {
      step();
    } catch {
      // Each build catches its own failures (it drops itself and starts again when next asked); a step that still
      // throws must not end the process or stop the other builds' slices.
    }
  } while (waiting.length > 0 && performance.now() < until);
  if (waiting.length > 0) arm();
}
