// Node flags a command's process must start with: V8 sizes its heap when the process starts, and the same flag set
// at run time (v8.setFlagsFromString) is ignored. Every way of starting a controller passes them: the `edgeward`
// script (and so the systemd unit), the demo's supervisor and the test fixture.

/**
 * A controller's young generation: semi-spaces of up to 32 MiB instead of V8's 16. Each scavenge has a cost that grows
 * with the old generation (4 ms at 125 MB of heap, 7-9 ms at 1.3 GB, with the copying itself steady at ~3.5 ms), and
 * a controller's old generation is its model; twice the room halves the number of scavenges. Three-node cluster, 64
 * connections writing identities, ten 10 s slices from an empty model to ~700k identities, three runs each way: 6605,
 * 6128, 6811 writes/s with 16 MiB against 6814, 6809, 6967 with 32 MiB; over the last five slices 5969, 5702, 6522
 * against 6754, 6392, 6381. Scavenges take ~9-12 ms instead of ~6-9 ms, and the process holds up to 32 MiB more.
 */
export const controllerNodeFlags: readonly string[] = ['--max-semi-space-size=32'];

/** The flags for the edgeward command `args` (empty for every command but `controller run`). */
export function nodeFlagsFor(args: readonly string[]): readonly string[] {
  return args[0] === 'controller' && args[1] === 'run' ? controllerNodeFlags : [];
}
