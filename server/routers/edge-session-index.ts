// The cluster's edge sessions as a synchronous answer for the API views: this controller's routers' reports at once,
// plus what the other controllers last answered (refreshed whenever one announces a change, and every few seconds in
// case an announcement was lost or a controller restarted). A refresh asked for while one runs runs once more after.
// Both sides are held as sets of identity ids, so a list of many identities costs one lookup each: the local set is
// rebuilt after a change here (`localChanged`) or once it is `localCacheMs` old (a disconnected router's grace ends).
import type { EdgeSessionDirectory } from '../edge/edge-session-directory.ts';
import type { EdgeSessionRecord } from './edge-session-registry.ts';

export class EdgeSessionIndex implements EdgeSessionDirectory {
  private remote: ReadonlySet<string> = new Set();
  private localIds: { at: number; ids: ReadonlySet<string> } | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly local: () => readonly EdgeSessionRecord[],
    private readonly fetchRemote: () => Promise<readonly EdgeSessionRecord[]>,
    private readonly now: () => number,
    private readonly localCacheMs = 250,
  ) {}

  identityConnected(identityId: string): boolean {
    const now = this.now();
    if (!this.localIds || now - this.localIds.at >= this.localCacheMs) this.localIds = { at: now, ids: new Set(this.local().map((record) => record.identityId)) };
    return this.localIds.ids.has(identityId) || this.remote.has(identityId);
  }

  /** This controller's routers reported a change: the next answer reads them again. */
  localChanged(): void {
    this.localIds = undefined;
  }

  /** Asks the other controllers again; never rejects (a failed ask keeps the last answer). */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.fetchRemote().then(
      (records) => {
        this.remote = new Set(records.map((record) => record.identityId));
      },
      () => undefined,
    );
    return this.running.finally(() => {
      this.running = undefined;
      if (!this.again) return;
      this.again = false;
      void this.refresh();
    });
  }
}
