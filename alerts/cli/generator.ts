// `./edgeward gen <what> <dir>`: writes generated configuration from its TypeScript definitions. Each generator
// is one entry of the table the command is made from: its options, and the files it produces from them. The
// generators live beside what they generate (alerts/cli/gen-command.ts, grafana/generate/dashboards-generator.ts);
// server/cli/gen-command.ts puts the table together.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode, type FlagValues, type LeafCommand } from '../../common/cli/command-line.ts';

export interface GenCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface GeneratedFile {
  /** Relative to the output directory; `/` separates the folders made under it. */
  readonly name: string;
  readonly text: string;
}

export interface Generator {
  readonly name: string;
  readonly usage: string;
  readonly valueOptions: readonly string[];
  /** The files, or a message saying what is wrong with the options. */
  outputs(options: ReadonlyMap<string, string>): readonly GeneratedFile[] | string;
}

export interface GenCommand {
  readonly generators: readonly Generator[];
  readonly usage: string;
  /** The parse the command runs first. */
  readonly commandLine: CommandLine;
  run(args: string[], io: GenCommandIo): Promise<number>;
}

/** Each generator's options, as the values its `outputs` reads. */
function optionsOf(generator: Generator, flags: FlagValues): Map<string, string> {
  const options = new Map<string, string>();
  for (const name of generator.valueOptions) {
    const value = flags.text(name);
    if (value !== undefined) options.set(name, value);
  }
  return options;
}

function leafOf(generator: Generator): LeafCommand {
  return {
    usage: `Usage: ./edgeward gen ${generator.usage.trimStart()}\n`,
    flags: generator.valueOptions.map((name) => ({ name, kind: 'string' as const })),
    arguments: ['dir'],
    min: 1,
    max: 1,
    example: ['out'],
    // The options' values are checked with the command line: a wrong one is a usage error before anything is written.
    check: ({ flags }) => {
      const outputs = generator.outputs(optionsOf(generator, flags));
      return typeof outputs === 'string' ? outputs : undefined;
    },
  };
}

/** `./edgeward gen` over these generators. */
export function genCommand(generators: readonly Generator[]): GenCommand {
  const usage = `Usage: ./edgeward gen <what> <dir> [options]

Writes generated configuration into <dir> (created if missing), replacing files of the same name.

${generators.map((generator) => generator.usage).join('\n')}
`;
  const tree: CommandNode = { usage, subcommands: Object.fromEntries(generators.map((generator) => [generator.name, leafOf(generator)])) };
  return {
    generators,
    usage,
    commandLine: commandLineOf('gen', tree),
    async run(args, io) {
      const outcome = parseCommand('gen', tree, args);
      if (outcome.kind !== 'run') return reportOutcome(outcome, io);
      const generator = generators.find((candidate) => candidate.name === outcome.value.path[0])!;
      const outputs = generator.outputs(optionsOf(generator, outcome.value.flags)) as readonly GeneratedFile[];
      const dir = outcome.value.positional[0]!;
      try {
        mkdirSync(dir, { recursive: true });
        for (const file of outputs) {
          const path = join(dir, ...file.name.split('/'));
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, file.text);
          io.stdout(`wrote ${path}\n`);
        }
      } catch (error) {
        io.stderr(`edgeward gen: ${(error as Error).message}\n`);
        return 1;
      }
      return 0;
    },
  };
}
