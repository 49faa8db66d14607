// How a long index build (a name order, a text index over 1M rows) gives the event loop back between bounded slices:
// the index hands each next slice to a scheduler, which runs it later, after pending I/O. Only a driver touches the
// event loop (server/web/routes/slices-on-immediate.ts uses setImmediate); a test keeps the steps and runs them by hand.

/** Runs `step` later. */
export type SliceScheduler = (step: () => void) => void;

/** Rows one slice of a build handles at most: a key read, a comparison and a move each (at 1M identities, ~5-15 ms of
 * CPU a slice; the whole name order took 4-5 s in one piece). */
export const defaultSliceRows = 16_384;
