// The cluster's edge sessions as a synchronous answer for the API views: this controller's routers' reports at once,
// plus what the other controllers last answered (refreshed whenever one announces a change, and every few seconds in
// case an announcement was lost or a controller restarted). A refresh asked for while one runs runs once more after.
import type { EdgeSessionDirectory } from '../edge/edge-session-directory.ts';
import type { EdgeSessionRecord } from './edge-session-registry.ts';

export class EdgeSessionIndex implements EdgeSessionDirectory {
  private remote: readonly EdgeSessionRecord[] = [];
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly local: () => readonly EdgeSessionRecord[],
    private readonly fetchRemote: () => Promise<readonly EdgeSessionRecord[]>,
  ) {}

  identityConnected(identityId: string): boolean {
    return this.local().some((record) => record.identityId === identityId) || this.remote.some((record) => record.identityId === identityId);
  }

  /** Asks the other controllers again; never rejects (a failed ask keeps the last answer). */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.fetchRemote().then(
      (records) => {
        this.remote = records;
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
