// How the page's server hands its latest snapshot to the page's first render. Next compiles the page (app/page.tsx)
// into its own bundle, so the page cannot share a module instance with the server that started it; both reach this one
// process-wide slot instead. The server registers a reader at start; the page asks it while rendering.

import type { Snapshot } from '../state/snapshot.ts';

export interface SnapshotSource {
  /** The latest snapshot, or undefined before the first gather. */
  latest(): Snapshot | undefined;
  /** Whether the page asks for a login (so it can show a logout button). */
  readonly loginRequired: boolean;
}

const slot = Symbol.for('edgeward.dashboard.snapshot-source');

export function registerSnapshotSource(source: SnapshotSource | undefined): void {
  (globalThis as Record<symbol, unknown>)[slot] = source;
}

export function snapshotSource(): SnapshotSource | undefined {
  return (globalThis as Record<symbol, unknown>)[slot] as SnapshotSource | undefined;
}
