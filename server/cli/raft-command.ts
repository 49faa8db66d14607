// `./edgeward raft sim ...`: the seeded fault simulator on demand, and the replay of one seed with its trace.
import { runSeeds } from '../raft/sim/run-seeds.ts';
import { runSimulation } from '../raft/sim/simulation.ts';
import { CliUsageError, parseArgs } from './cli-args.ts';
import type { CliIo } from './main.ts';

const usage = `Usage:
  ./edgeward raft sim [--seeds <n>] [--first <seed>] [--steps <k>] [--nodes <m>]
      run n seeds (default 100) from --first (default 1); ends with '<p> passed, <f> failed'
  ./edgeward raft sim --seed <s> [--steps <k>] [--nodes <m>] [--trace]
      replay one seed exactly; --trace prints every event
`;

function positiveInteger(value: unknown, flag: string, fallback: number, min = 1, max = 1_000_000_000): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) throw new CliUsageError(`--${flag} must be a whole number from ${min} to ${max}, not '${String(value)}'`);
  return number;
}

export async function runRaftCommand(args: string[], io: CliIo): Promise<number> {
  try {
    const parsed = parseArgs(args, { seeds: 'string', first: 'string', steps: 'string', nodes: 'string', seed: 'string', trace: 'boolean', help: 'boolean' });
    if (parsed.flags.help || parsed.positional[0] !== 'sim' || parsed.positional.length > 1) {
      if (parsed.flags.help) {
        io.stdout(usage);
        return 0;
      }
      throw new CliUsageError(parsed.positional.length === 0 ? 'expected a subcommand: sim' : `unknown raft command '${parsed.positional.join(' ')}'`);
    }
    const steps = positiveInteger(parsed.flags.steps, 'steps', 3000, 1, 10_000_000);
    const nodes = positiveInteger(parsed.flags.nodes, 'nodes', 3, 1, 9);
    if (parsed.flags.seed !== undefined) {
      if (parsed.flags.seeds !== undefined || parsed.flags.first !== undefined) throw new CliUsageError('--seed replays one seed; it does not go with --seeds or --first');
      const seed = positiveInteger(parsed.flags.seed, 'seed', 1, 0, 0xffffffff);
      const result = runSimulation({ seed, steps, nodes, ...(parsed.flags.trace ? { trace: (line: string) => io.stdout(`${line}\n`) } : {}) });
      io.stdout(`seed ${seed}: ${result.ok ? 'passed' : `FAILED at step ${result.step}: ${result.failure}`}\n`);
      io.stdout(`stats ${JSON.stringify(result.stats)}\n`);
      io.stdout(`${result.ok ? 1 : 0} passed, ${result.ok ? 0 : 1} failed\n`);
      return result.ok ? 0 : 1;
    }
    if (parsed.flags.trace) throw new CliUsageError('--trace goes with --seed <s>');
    const summary = runSeeds({
      first: positiveInteger(parsed.flags.first, 'first', 1, 0, 0xffffffff),
      seeds: positiveInteger(parsed.flags.seeds, 'seeds', 100),
      steps,
      nodes,
    });
    for (const failure of summary.failed) io.stdout(`FAILED seed ${failure.seed} at step ${failure.step}: ${failure.failure}\n  replay: ./edgeward raft sim --seed ${failure.seed} --steps ${steps} --nodes ${nodes} --trace\n`);
    io.stdout(`${(summary.elapsedMs / 1000).toFixed(1)} s, ${nodes} nodes, ${steps} steps per seed\n`);
    io.stdout(`${summary.passed} passed, ${summary.failed.length} failed\n`);
    return summary.failed.length === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.stderr(`error: ${error.message}\n\n${usage}`);
      return 2;
    }
    throw error;
  }
}
