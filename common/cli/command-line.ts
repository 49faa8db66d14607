// The command line of an `./edgeward` command as data: its subcommands, each one's flags and arguments, and one pure
// parse that says "print this help", "this is a usage error, because ..." or "run this". The command runs the parse
// before anything else, so `--help` and a wrong command line never read a file, open a socket or install anything;
// tests run the same parse over the whole command tree and over every command the docs show.

import { suggestKey } from '../config/suggest-key.ts';

export interface FlagDef {
  /** The long name, without `--`. */
  readonly name: string;
  /** A one-letter short name, without `-` (`-h` is always help). */
  readonly short?: string;
  /** `boolean` takes no value (or `=true`/`=false`); `string` one value; `list` one value each time it is given. */
  readonly kind: 'boolean' | 'string' | 'list';
  readonly required?: boolean;
}

export interface LeafCommand {
  readonly usage: string;
  readonly flags: readonly FlagDef[];
  /** The positional arguments' names, for messages: `['ctrl.yml']`. */
  readonly arguments: readonly string[];
  /** How many positional arguments it takes (max: Infinity for any number). */
  readonly min: number;
  readonly max: number;
  /** Arguments that parse, for tests (the command shown with sample values). */
  readonly example: readonly string[];
  /** Rules between flags and values that make a usage error (a number out of range, two flags that exclude each other). */
  readonly check?: (parsed: { readonly positional: readonly string[]; readonly flags: FlagValues }) => string | undefined;
}

export interface GroupCommand {
  readonly usage: string;
  readonly subcommands: Readonly<Record<string, CommandNode>>;
}

export type CommandNode = LeafCommand | GroupCommand;

export type ParseOutcome<T = unknown> =
  | { readonly kind: 'help'; readonly text: string }
  /** `command` is the command path whose `--help` to suggest, such as `router validate`. */
  | { readonly kind: 'usage-error'; readonly command: string; readonly reason: string }
  | { readonly kind: 'run'; readonly value: T };

/** A subcommand of the tree, as tests walk it. */
export interface SubcommandInfo {
  /** Words after the command's name, such as `['cluster', 'list']`; `[]` for a command without subcommands. */
  readonly path: readonly string[];
  /** Arguments after the path that parse: the command with sample values. */
  readonly example: readonly string[];
  /** It refuses to run without arguments (a missing argument is a usage error). */
  readonly needsArguments: boolean;
}

/** What each command module exports: the command's name, its subcommands, and its parse. */
export interface CommandLine {
  readonly name: string;
  readonly subcommands: readonly SubcommandInfo[];
  /** Pure: looks at the words only, never at files, the network or the environment. */
  parse(args: readonly string[]): ParseOutcome;
}

/** The two lines every usage error prints on stderr (exit code 2). */
export function usageErrorText(command: string, reason: string): string {
  return `edgeward ${command}: ${reason}\nRun './edgeward ${command} --help' for usage.\n`;
}

/** Prints the outcome of a parse that did not say "run"; returns the exit code (0 for help, 2 for a usage error). */
export function reportOutcome(outcome: Exclude<ParseOutcome, { kind: 'run' }>, io: { stdout(text: string): void; stderr(text: string): void }): number {
  if (outcome.kind === 'help') {
    io.stdout(outcome.text);
    return 0;
  }
  io.stderr(usageErrorText(outcome.command, outcome.reason));
  return 2;
}

export function isHelpWord(word: string): boolean {
  return word === '--help' || word === '-h' || word === '--help=true';
}

/** `--help` or `-h` among the words before `--`. */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some(isHelpWord);
}

export class FlagValues {
  constructor(private readonly values: ReadonlyMap<string, string | boolean | readonly string[]>) {}

  has(name: string): boolean {
    return this.values.has(name);
  }

  text(name: string): string | undefined {
    const value = this.values.get(name);
    return typeof value === 'string' ? value : undefined;
  }

  bool(name: string): boolean | undefined {
    const value = this.values.get(name);
    return typeof value === 'boolean' ? value : undefined;
  }

  list(name: string): readonly string[] {
    const value = this.values.get(name);
    return Array.isArray(value) ? value : [];
  }
}

export interface ParsedCommand {
  /** The subcommand words, such as `['cluster', 'add']`. */
  readonly path: readonly string[];
  readonly positional: readonly string[];
  readonly flags: FlagValues;
}

function isGroup(node: CommandNode): node is GroupCommand {
  return 'subcommands' in node;
}

/**
 * Walks `args` down the tree: subcommand words first, then the leaf's flags and arguments. `--help`/`-h` anywhere
 * (before `--`) is the help of the deepest subcommand the words reach; `help` in a subcommand's place is the help of
 * the group.
 */
export function parseCommand(name: string, root: CommandNode, args: readonly string[]): ParseOutcome<ParsedCommand> {
  const help = asksForHelp(args);
  let node = root;
  const path: string[] = [];
  let index = 0;
  while (isGroup(node)) {
    const word = args[index];
    const where = [name, ...path].join(' ');
    if (word === 'help' || (word !== undefined && isHelpWord(word))) return { kind: 'help', text: node.usage };
    const names = Object.keys(node.subcommands);
    if (word === undefined || word.startsWith('-')) {
      if (help) return { kind: 'help', text: node.usage };
      return { kind: 'usage-error', command: where, reason: `${word === undefined ? 'missing' : `expected`} a subcommand (${names.join(', ')})${word === undefined ? '' : `, not '${word}'`}` };
    }
    const next = Object.hasOwn(node.subcommands, word) ? node.subcommands[word] : undefined;
    if (!next) {
      if (help) return { kind: 'help', text: node.usage };
      const hint = suggestKey(word, names);
      return { kind: 'usage-error', command: where, reason: `unknown subcommand '${word}'${hint ? ` (did you mean ${hint}?)` : ''}; one of ${names.join(', ')}` };
    }
    path.push(word);
    node = next;
    index++;
  }
  if (help) return { kind: 'help', text: node.usage };
  const command = [name, ...path].join(' ');
  const parsed = parseLeaf(node, args.slice(index));
  if (typeof parsed === 'string') return { kind: 'usage-error', command, reason: parsed };
  return { kind: 'run', value: { path, ...parsed } };
}

/** A leaf's flags and arguments, or the reason they are wrong. */
export function parseLeaf(leaf: LeafCommand, args: readonly string[]): { positional: string[]; flags: FlagValues } | string {
  const byName = new Map(leaf.flags.map((flag) => [flag.name, flag]));
  const byShort = new Map(leaf.flags.filter((flag) => flag.short !== undefined).map((flag) => [flag.short!, flag]));
  const values = new Map<string, string | boolean | string[]>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      positional.push(arg);
      continue;
    }
    const long = arg.startsWith('--');
    const eq = arg.indexOf('=');
    const key = arg.slice(long ? 2 : 1, eq < 0 ? undefined : eq);
    const flag = long ? byName.get(key) : key.length === 1 ? byShort.get(key) : undefined;
    const written = long ? `--${key}` : `-${key}`;
    if (!flag) {
      const hint = long ? suggestKey(key, byName.keys()) : undefined;
      const known = leaf.flags.map((candidate) => `--${candidate.name}`).join(', ');
      return `unknown flag ${written}${hint ? ` (did you mean --${hint}?)` : known ? ` (flags: ${known})` : ' (it takes no flags)'}`;
    }
    if (flag.kind !== 'list' && values.has(flag.name)) return `--${flag.name} is given more than once`;
    if (flag.kind === 'boolean') {
      const text = eq < 0 ? 'true' : arg.slice(eq + 1);
      if (text !== 'true' && text !== 'false') return `--${flag.name} takes true or false, not '${text}'`;
      values.set(flag.name, text === 'true');
      continue;
    }
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('--'))) return `--${flag.name} needs a value`;
    if (flag.kind === 'list') values.set(flag.name, [...((values.get(flag.name) as string[] | undefined) ?? []), value]);
    else values.set(flag.name, value);
  }
  for (const flag of leaf.flags) if (flag.required && !values.has(flag.name)) return `--${flag.name} is required`;
  if (positional.length < leaf.min) return `missing <${leaf.arguments[positional.length] ?? leaf.arguments.at(-1) ?? 'argument'}>`;
  if (positional.length > leaf.max) return leaf.max === 0 ? `takes no arguments, not '${positional.join(' ')}'` : `unexpected argument '${positional[leaf.max]}'`;
  const flags = new FlagValues(values);
  return leaf.check?.({ positional, flags }) ?? { positional, flags };
}

/** Every subcommand of the tree (groups included), for the tests that walk it. */
export function subcommandsOf(root: CommandNode): SubcommandInfo[] {
  const out: SubcommandInfo[] = [];
  const visit = (node: CommandNode, path: string[]) => {
    if (isGroup(node)) {
      out.push({ path, example: [], needsArguments: true });
      for (const [word, child] of Object.entries(node.subcommands)) visit(child, [...path, word]);
    } else {
      out.push({ path, example: node.example, needsArguments: node.min > 0 || node.flags.some((flag) => flag.required) });
    }
  };
  visit(root, []);
  return out;
}

/** The command line of a command described by a tree. */
export function commandLineOf(name: string, root: CommandNode): CommandLine {
  return { name, subcommands: subcommandsOf(root), parse: (args) => parseCommand(name, root, args) };
}
