// `./edgeward raft sim ...`: the seeded fault simulator on demand, and the replay of one seed with its trace.
import { runSeeds } from '../raft/sim/run-seeds.ts';
import { runSimulation } from '../raft/sim/simulation.ts';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode, type FlagDef, type FlagValues } from '../../common/cli/command-line.ts';
import type { CliIo } from './main.ts';

const simUsage = `Usage:
  ./edgeward raft sim [--seeds <n>] [--first <seed>] [--steps <k>] [--nodes <m>]
      run n seeds (default 100) from --first (default 1); ends with '<p> passed, <f> failed'
  ./edgeward raft sim --seed <s> [--steps <k>] [--nodes <m>] [--trace]
      replay one seed exactly; --trace prints every event

Exit 0 when every seed passed, 1 when one failed (its replay command is printed).
`;

const usage = `Usage: ./edgeward raft <subcommand> ...

Subcommands:
  sim [--seeds <n>] [--first <seed>] [--steps <k>] [--nodes <m>]   run the seeded fault simulator
  sim --seed <s> [--trace]                                          replay one seed with its events

'./edgeward raft sim --help' describes it.
`;

const tree: CommandNode = {
  usage,
  subcommands: {
    sim: {
      usage: simUsage,
      flags: ['seeds', 'first', 'steps', 'nodes', 'seed'].map((name): FlagDef => ({ name, kind: 'string' })).concat([{ name: 'trace', kind: 'boolean' }]),
      arguments: [],
      min: 0,
      max: 0,
      example: ['--seeds', '10'],
      check: ({ flags }) => {
        for (const [flag, min, max] of simBounds) {
          const value = flags.text(flag);
          if (value !== undefined && !isWholeNumber(value, min, max)) return `--${flag} must be a whole number from ${min} to ${max}, not '${value}'`;
        }
        if (flags.has('seed') && (flags.has('seeds') || flags.has('first'))) return '--seed replays one seed; it does not go with --seeds or --first';
        if (flags.bool('trace') && !flags.has('seed')) return '--trace goes with --seed <s>';
        return undefined;
      },
    },
  },
};

/** `./edgeward raft ...`: its subcommands, and the parse the command runs first. */
export const raftCommandLine: CommandLine = commandLineOf('raft', tree);

/** Each numeric flag's bounds. */
const simBounds: readonly (readonly [string, number, number])[] = [
  ['seeds', 1, 1_000_000_000],
  ['first', 0, 0xffffffff],
  ['steps', 1, 10_000_000],
  ['nodes', 1, 9],
  ['seed', 0, 0xffffffff],
];

function isWholeNumber(text: string, min: number, max: number): boolean {
  const number = Number(text);
  return /^\d+$/.test(text) && Number.isInteger(number) && number >= min && number <= max;
}

/** A numeric flag's value (checked by the parse), or its default. */
function numberFlag(flags: FlagValues, flag: string, fallback: number): number {
  const text = flags.text(flag);
  return text === undefined ? fallback : Number(text);
}

export async function runRaftCommand(args: string[], io: CliIo): Promise<number> {
  const outcome = parseCommand('raft', tree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const flags = outcome.value.flags;
  const steps = numberFlag(flags, 'steps', 3000);
  const nodes = numberFlag(flags, 'nodes', 3);
  if (flags.has('seed')) {
    const seed = numberFlag(flags, 'seed', 1);
    const result = runSimulation({ seed, steps, nodes, ...(flags.bool('trace') ? { trace: (line: string) => io.stdout(`${line}\n`) } : {}) });
    io.stdout(`seed ${seed}: ${result.ok ? 'passed' : `FAILED at step ${result.step}: ${result.failure}`}\n`);
    io.stdout(`stats ${JSON.stringify(result.stats)}\n`);
    io.stdout(`${result.ok ? 1 : 0} passed, ${result.ok ? 0 : 1} failed\n`);
    return result.ok ? 0 : 1;
  }
  const summary = runSeeds({ first: numberFlag(flags, 'first', 1), seeds: numberFlag(flags, 'seeds', 100), steps, nodes });
  for (const failure of summary.failed) io.stdout(`FAILED seed ${failure.seed} at step ${failure.step}: ${failure.failure}\n  replay: ./edgeward raft sim --seed ${failure.seed} --steps ${steps} --nodes ${nodes} --trace\n`);
  io.stdout(`${(summary.elapsedMs / 1000).toFixed(1)} s, ${nodes} nodes, ${steps} steps per seed\n`);
  io.stdout(`${summary.passed} passed, ${summary.failed.length} failed\n`);
  return summary.failed.length === 0 ? 0 : 1;
}
