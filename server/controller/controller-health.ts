// The controller's health checks (the `health-checks` API): the model store answers reads, and the raft node still
// runs. A raft node that stopped after a storage failure is reported at once, not at the next check.
import type { Clock } from '../../common/time/clock.ts';
import { HealthChecker } from '../health/health-checker.ts';
import type { ClusterRaft } from '../raft/node/raft-node.ts';
import type { ModelStore } from '../store/model-store.ts';

export interface ControllerHealth {
  readonly health: HealthChecker;
  /** Resolves if the raft node stops after a storage failure. */
  readonly failed: Promise<Error>;
}

/** Runs every check once, then starts them on their intervals. */
export async function startHealthChecks(store: ModelStore, raft: ClusterRaft, clock: Clock): Promise<ControllerHealth> {
  const health = new HealthChecker(
    [
      { id: 'bolt.read', run: () => store.ping(), intervalMs: 30_000, timeoutMs: 20_000, initialDelayMs: 30_000 },
      {
        id: 'raft.node',
        run: async () => {
          if (raft.failed) throw new Error(`the raft node stopped: ${raft.failed.message}`);
        },
        intervalMs: 5_000,
        timeoutMs: 1_000,
        initialDelayMs: 5_000,
      },
    ],
    clock,
  );
  await health.runAll();
  // A failed raft node leaves the model frozen: health, sessions and writes answer 503 from now on, without waiting
  // for the next check, and the process exits (cli/controller-command.ts) so that its supervisor restarts it.
  const failed = new Promise<Error>((resolve) => {
    raft.onFailure((error) => {
      void health.recheck('raft.node');
      resolve(error);
    });
  });
  health.start();
  return { health, failed };
}
