// The driver of background index builds (server/store/slice-scheduler.ts): each next slice runs from setImmediate, after
// the I/O callbacks already waiting, so requests and raft messages are served between two slices of a build.
import type { SliceScheduler } from '../../store/slice-scheduler.ts';

export const slicesOnImmediate: SliceScheduler = (step) => void setImmediate(step);
