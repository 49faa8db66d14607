// `./edgeward raft sim ...` and `./edgeward raft mutants ...`: the seeded fault simulator over worker threads, the
// replay of one seed with its trace (of the code, or of a planted bug's copy of it), and the planted-bug suite.
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { runSeedPool, repoRoot } from '../raft/sim/seed-pool.ts';
import { simulationFamilies, type SimulationFamily, type SimulationResult } from '../raft/sim/simulation.ts';
import { runMutants, selectMutants } from '../raft/mutants/run-mutants.ts';
import { createMutantTree } from '../raft/mutants/mutant-tree.ts';
import { mutants } from '../raft/mutants/mutants.ts';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode, type FlagDef, type FlagValues } from '../../common/cli/command-line.ts';
import type { CliIo } from './main.ts';

const simUsage = `Usage:
  ./edgeward raft sim [--seeds <n>] [--first <seed>] [--random] [--steps <k>] [--nodes <m>] [--workers <w>] [--family <f>]
      run n seeds (default 100) from --first (default 1; --random: a random first seed, printed) over w worker
      threads (default: one per CPU); ends with '<p> passed, <f> failed' and the seeds per second
  ./edgeward raft sim --seed <s> [--steps <k>] [--nodes <m>] [--family <f>] [--mutant <name>] [--trace]
      replay one seed exactly, step for step (of a planted bug's copy of the code with --mutant); --trace prints
      every event

--family standard (default): faults, then liveness. --family recovery: part-way through the faults every server
but one loses its disk for good; the survivor is forced to a single voter (forceSingleVoter), fresh servers join
it, and the run goes on; what only the lost servers held is reported as 'lost to recovery', not as a failure.

Exit 0 when every seed passed, 1 when one failed (its replay command is printed).
`;

const mutantsUsage = `Usage:
  ./edgeward raft mutants [--only <name>]... [--seeds <n>] [--first <seed>] [--steps <k>] [--nodes <m>] [--workers <w>]
      apply each planted bug to a copy of the raft code, one at a time, and run seeds from --first (default 1) until
      one fails, at most n (default 2000) per bug; prints each bug's first failing seed and the time it took
  ./edgeward raft mutants --list
      name the planted bugs and the rule each breaks

Exit 0 when every bug was caught within its budget, 1 when one was not.
`;

const usage = `Usage: ./edgeward raft <subcommand> ...

Subcommands:
  sim [--seeds <n>] [--first <seed>] [--steps <k>] [--nodes <m>]   run the seeded fault simulator (--family recovery:
                                                                    with a majority lost and the survivor recovered)
  sim --seed <s> [--trace]                                          replay one seed with its events
  mutants [--only <name>] [--seeds <n>]                             check that the simulator catches planted bugs

'./edgeward raft <subcommand> --help' describes each.
`;

const numberFlags = (names: readonly string[]): FlagDef[] => names.map((name): FlagDef => ({ name, kind: 'string' }));

const tree: CommandNode = {
  usage,
  subcommands: {
    sim: {
      usage: simUsage,
      flags: [...numberFlags(['seeds', 'first', 'steps', 'nodes', 'seed', 'workers']), { name: 'mutant', kind: 'string' }, { name: 'family', kind: 'string' }, { name: 'trace', kind: 'boolean' }, { name: 'random', kind: 'boolean' }],
      arguments: [],
      min: 0,
      max: 0,
      example: ['--seeds', '10'],
      check: ({ flags }) => {
        const bad = checkNumbers(flags);
        if (bad) return bad;
        if (flags.has('seed') && (flags.has('seeds') || flags.has('first') || flags.bool('random') || flags.has('workers'))) return '--seed replays one seed; it does not go with --seeds, --first, --random or --workers';
        if (flags.bool('random') && flags.has('first')) return '--random picks the first seed; it does not go with --first';
        if (flags.bool('trace') && !flags.has('seed')) return '--trace goes with --seed <s>';
        if (flags.has('mutant') && !flags.has('seed')) return "--mutant goes with --seed <s> (to run the planted bugs, use './edgeward raft mutants')";
        const family = flags.text('family');
        if (family !== undefined && !simulationFamilies.includes(family as SimulationFamily)) return `--family must be one of ${simulationFamilies.join(', ')}, not '${family}'`;
        const mutant = flags.text('mutant');
        if (mutant !== undefined && !mutants.some((known) => known.name === mutant)) return `--mutant: no planted bug is named '${mutant}' ('./edgeward raft mutants --list' names them)`;
        return undefined;
      },
    },
    mutants: {
      usage: mutantsUsage,
      flags: [...numberFlags(['seeds', 'first', 'steps', 'nodes', 'workers']), { name: 'only', kind: 'list' }, { name: 'list', kind: 'boolean' }],
      arguments: [],
      min: 0,
      max: 0,
      example: ['--only', 'quorum-one-short', '--seeds', '50'],
      check: ({ flags }) => {
        const bad = checkNumbers(flags);
        if (bad) return bad;
        if (flags.bool('list') && (flags.has('only') || flags.has('seeds') || flags.has('first'))) return '--list names the planted bugs; it takes no other flag';
        try {
          selectMutants(flags.list('only'));
        } catch (error) {
          return `--only: ${(error as Error).message}`;
        }
        return undefined;
      },
    },
  },
};

/** `./edgeward raft ...`: its subcommands, and the parse the command runs first. */
export const raftCommandLine: CommandLine = commandLineOf('raft', tree);

/** Each numeric flag's bounds. */
const numberBounds: readonly (readonly [string, number, number])[] = [
  ['seeds', 1, 1_000_000_000],
  ['first', 0, 0xffffffff],
  ['steps', 1, 10_000_000],
  ['nodes', 1, 9],
  ['seed', 0, 0xffffffff],
  ['workers', 1, 256],
];

function checkNumbers(flags: FlagValues): string | undefined {
  for (const [flag, min, max] of numberBounds) {
    const value = flags.has(flag) ? flags.text(flag) : undefined;
    if (value !== undefined && !isWholeNumber(value, min, max)) return `--${flag} must be a whole number from ${min} to ${max}, not '${value}'`;
  }
  return undefined;
}

function isWholeNumber(text: string, min: number, max: number): boolean {
  const number = Number(text);
  return /^\d+$/.test(text) && Number.isInteger(number) && number >= min && number <= max;
}

/** A numeric flag's value (checked by the parse), or its default. */
function numberFlag(flags: FlagValues, flag: string, fallback: number): number {
  const text = flags.text(flag);
  return text === undefined ? fallback : Number(text);
}

export const replayCommand = (result: Pick<SimulationResult, 'seed'>, steps: number, nodes: number, mutant?: string, family: SimulationFamily = 'standard'): string =>
  `./edgeward raft sim --seed ${result.seed} --steps ${steps} --nodes ${nodes}${family === 'standard' ? '' : ` --family ${family}`}${mutant ? ` --mutant ${mutant}` : ''} --trace`;

export async function runRaftCommand(args: string[], io: CliIo): Promise<number> {
  const outcome = parseCommand('raft', tree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const { flags, path } = outcome.value as { flags: FlagValues; path: readonly string[] };
  const steps = numberFlag(flags, 'steps', 3000);
  const nodes = numberFlag(flags, 'nodes', 3);
  if (path[0] === 'mutants') return runMutantsCommand(flags, steps, nodes, io);
  const family = (flags.text('family') ?? 'standard') as SimulationFamily;
  if (flags.has('seed')) return replaySeed(numberFlag(flags, 'seed', 1), steps, nodes, family, flags, io);
  const first = flags.bool('random') ? randomFirstSeed() : numberFlag(flags, 'first', 1);
  const seeds = numberFlag(flags, 'seeds', 100);
  const workers = numberFlag(flags, 'workers', availableParallelism());
  io.stdout(`seeds ${first}..${first + seeds - 1}, ${nodes} nodes, ${steps} steps per seed, ${workers} worker threads${family === 'standard' ? '' : `, family ${family}`}\n`);
  const lost = { writes: 0, acknowledged: 0, seeds: 0, reruns: 0 };
  const summary = await runSeedPool({ first, seeds, steps, nodes, workers, family }, ({ stats }) => {
    lost.writes += stats.writesLostToRecovery.length;
    lost.acknowledged += stats.acknowledgedLostToRecovery;
    if (stats.writesLostToRecovery.length > 0) lost.seeds++;
    lost.reruns += stats.recoveryRuns - stats.recoveries;
  });
  for (const failure of summary.failed) io.stdout(`FAILED seed ${failure.seed} at step ${failure.step}: ${failure.failure}\n  replay: ${replayCommand(failure, steps, nodes, undefined, family)}\n`);
  if (family === 'recovery') {
    io.stdout(`lost to recovery: ${lost.writes} committed entries (${lost.acknowledged} acknowledged) in ${lost.seeds} seeds; ${lost.reruns} recovery runs killed part-way and run again\n`);
  }
  const ran = summary.passed + summary.failed.length;
  io.stdout(`${(summary.elapsedMs / 1000).toFixed(1)} s, ${(ran / (summary.elapsedMs / 1000)).toFixed(1)} seeds per second\n`);
  io.stdout(`${summary.passed} passed, ${summary.failed.length} failed\n`);
  return summary.failed.length === 0 ? 0 : 1;
}

async function replaySeed(seed: number, steps: number, nodes: number, family: SimulationFamily, flags: FlagValues, io: CliIo): Promise<number> {
  const mutantName = flags.text('mutant');
  const mutant = mutants.find((known) => known.name === mutantName);
  const tree = mutant ? await createMutantTree(repoRoot, mutant) : undefined;
  try {
    const module = pathToFileURL(join(tree?.root ?? repoRoot, 'server/raft/sim/simulation.ts')).href;
    const { runSimulation } = (await import(module)) as typeof import('../raft/sim/simulation.ts');
    if (mutant) io.stdout(`planted bug ${mutant.name}: breaks ${mutant.breaks}\n`);
    const result = await runSimulation({ seed, steps, nodes, family, ...(flags.bool('trace') ? { trace: (line: string) => io.stdout(`${line}\n`) } : {}) });
    io.stdout(`seed ${seed}: ${result.ok ? 'passed' : `FAILED at step ${result.step}: ${result.failure}`}\n`);
    io.stdout(`stats ${JSON.stringify(result.stats)}\n`);
    io.stdout(`${result.ok ? 1 : 0} passed, ${result.ok ? 0 : 1} failed\n`);
    return result.ok ? 0 : 1;
  } finally {
    await tree?.remove();
  }
}

async function runMutantsCommand(flags: FlagValues, steps: number, nodes: number, io: CliIo): Promise<number> {
  if (flags.bool('list')) {
    for (const mutant of mutants) io.stdout(`${mutant.name}\n  breaks: ${mutant.breaks}\n  edits: server/raft/${mutant.file}\n`);
    return 0;
  }
  const first = numberFlag(flags, 'first', 1);
  const seeds = numberFlag(flags, 'seeds', 2000);
  const started = performance.now();
  io.stdout(`each planted bug: seeds ${first}..${first + seeds - 1} at most, ${nodes} nodes, ${steps} steps per seed\n`);
  const outcomes = await runMutants({ first, seeds, steps, nodes, only: flags.list('only'), ...(flags.has('workers') ? { workers: numberFlag(flags, 'workers', 1) } : {}) }, (outcome) => {
    const time = `${(outcome.elapsedMs / 1000).toFixed(1)} s`;
    if (outcome.caught) {
      io.stdout(`caught     ${outcome.mutant.name}: seed ${outcome.caught.seed} (step ${outcome.caught.step}) after ${outcome.seedsRun} seeds in ${time}\n`);
      io.stdout(`           ${firstLine(outcome.caught.failure)}\n           replay: ${replayCommand(outcome.caught, steps, nodes, outcome.mutant.name)}\n`);
    } else {
      io.stdout(`NOT CAUGHT ${outcome.mutant.name}: ${outcome.seedsRun} seeds passed in ${time} (breaks ${outcome.mutant.breaks})\n`);
    }
  });
  const missed = outcomes.filter((outcome) => !outcome.caught).length;
  io.stdout(`${outcomes.length - missed} of ${outcomes.length} planted bugs caught in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return missed === 0 ? 0 : 1;
}

const firstLine = (text: string): string => text.split('\n')[0]!;

function randomFirstSeed(): number {
  return Math.floor(Math.random() * 0xf0000000);
}
