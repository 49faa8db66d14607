// Node flags a command's process must start with: V8 sizes its heap and its helper threads when the process starts,
// and the same flags set at run time (v8.setFlagsFromString) are ignored. Every way of starting a controller passes
// them: the `edgeward` script (and so the systemd unit), the release launcher, the demo's supervisor and the test
// fixture. The two shell scripts compute the same values (a test compares them).
import { availableParallelism } from 'node:os';

/**
 * A controller's young generation: semi-spaces of up to 32 MiB instead of V8's 16. Each scavenge has a cost that grows
 * with the old generation (4 ms at 125 MB of heap, 7-9 ms at 1.3 GB, with the copying itself steady at ~3.5 ms), and
 * a controller's old generation is its model; twice the room halves the number of scavenges. Three-node cluster, 64
 * connections writing identities, ten 10 s slices from an empty model to ~700k identities, three runs each way: 6605,
 * 6128, 6811 writes/s with 16 MiB against 6814, 6809, 6967 with 32 MiB; over the last five slices 5969, 5702, 6522
 * against 6754, 6392, 6381. Scavenges take ~9-12 ms instead of ~6-9 ms, and the process holds up to 32 MiB more.
 */
export const semiSpaceFlag = '--max-semi-space-size=32';

/**
 * A controller's old generation grows by at most half of what it held after its last full collection before the next
 * one (`--heap-growing-percent`). V8 otherwise picks the growth from how fast the process allocates against how fast
 * it collects, up to 4x on a machine with gigabytes of memory: the controller that takes the management API's writes
 * allocates the most (a write's request objects live until its command commits, long enough to be promoted), so it
 * ran with up to three times its live heap while the followers ran with ~1.2x. Three-node clusters loaded with 300k
 * identities at 1,200-1,700/s, two rounds each way: the writes' controller's peak RSS 792 and 735 MiB without, 528 and
 * 522 with (what it holds after a full collection, ~200 MiB, the same); at 1M, 976 MiB against 1,810. The price is
 * 1.2-1.3x its CPU per identity, in more full collections (bench/RESULTS.md, leader-rss notes).
 */
export const heapGrowingFlag = '--heap-growing-percent=50';

/**
 * V8's helper threads (parallel scavenges, concurrent marking and sweeping, background compilation): one per two
 * CPUs, at least 1 and at most Node's default of 4. A scavenge ends only when every helper has finished its share, so
 * helpers that outnumber the CPUs make the pause wait for the slowest one to be scheduled. On 2 CPUs (three
 * controllers and the load on one machine, bench/RESULTS.md, write-pipeline notes) 1 helper instead of 4 took the p99
 * of writes at 64 connections from a median of 66 ms to 53 over ten runs each way.
 */
export function v8PoolSize(cpus: number): number {
  return Math.min(4, Math.max(1, Math.floor(cpus / 2)));
}

/** The flags `controller run` starts with on a machine with `cpus` CPUs (this one's by default). */
export function controllerNodeFlags(cpus: number = availableParallelism()): readonly string[] {
  return [semiSpaceFlag, heapGrowingFlag, `--v8-pool-size=${v8PoolSize(cpus)}`];
}

/** The flags for the edgeward command `args` (empty for every command but `controller run`). */
export function nodeFlagsFor(args: readonly string[]): readonly string[] {
  return args[0] === 'controller' && args[1] === 'run' ? controllerNodeFlags() : [];
}

/** POSIX shell that sets `$pool` to v8PoolSize(the CPUs `nproc` counts), for the launchers. */
export const shellPoolSize = 'pool=$(( $(nproc 2>/dev/null || echo 2) / 2 )); if [ "$pool" -lt 1 ]; then pool=1; fi; if [ "$pool" -gt 4 ]; then pool=4; fi';
