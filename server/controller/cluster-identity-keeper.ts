// Gives the cluster its id (model/cluster-identity.ts) once: the leader of a cluster that has none (a new one, or
// one from before ids existed) proposes a random one, checking once a second until the model holds it. Setting an id
// when one exists changes nothing, so two leaders racing across an election cannot give the cluster two.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import { clusterIdOf } from '../model/cluster-identity.ts';
import type { ModelWriter } from '../edge/model-writer.ts';
import type { ModelStore } from '../store/model-store.ts';

export const clusterIdCheckMs = 1_000;

/** Starts the check; the returned function stops it. */
export function keepClusterIdentity(
  store: ModelStore,
  writer: ModelWriter,
  leadership: { isLeader(): boolean; observe(listener: () => void): void },
  clock: Clock,
  logger: Logger,
  checkMs = clusterIdCheckMs,
): () => void {
  const isLeader = () => leadership.isLeader();
  let writing = false;
  let stopped = false;
  const check = () => {
    if (clusterIdOf(store) !== undefined) return clearInterval(timer);
    if (writing || !isLeader()) return;
    writing = true;
    writer
      .write<{ clusterId: string }>({ type: 'clusterIdentity.set', clusterId: randomUUID(), at: isoTime(clock.now()) })
      .then(({ value }) => logger.info('cluster id set', { clusterId: value.clusterId }))
      .catch((error: Error) => logger.debug('cluster id not set yet', { error: error.message }))
      .finally(() => (writing = false));
  };
  const timer = setInterval(check, checkMs);
  timer.unref();
  // A new leader sets it at once rather than at the next check.
  leadership.observe(() => (stopped ? undefined : check()));
  check();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
