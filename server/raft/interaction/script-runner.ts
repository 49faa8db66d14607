// Runs raft interaction scripts written in the format of etcd's datadriven testdata: a command line, a `----`
// line, the expected output, then a blank line. Lines starting with `#` and blank lines between cases are kept
// as they are. An output that itself contains a blank line is fenced by a doubled separator (`----` `----` before
// and after it). Running a script yields the actual output of every command and the script text rewritten
// with it; `checkScriptFile` compares a file, or rewrites it when EDGEWARD_REWRITE=1.
//
// Commands (ids are n1..nN; `all` means every node):
//   add-nodes <count> [voters=n1,n2] [nonvoters=n3] [election=10] [heartbeat=2] [prevote=true] [checkquorum=true]
//             [inflight=256] [max-entries=64]      new nodes; the first batch defaults to all of them as voters,
//                                                  later batches to no configuration (servers waiting to join)
//   log <id> <term>:<count>... [term=T] [vote=nX] [commit=C]   replace a node's durable log and restart it
//   campaign <id> | tick-election <id>             tick a follower until it starts an election
//   tick <id...|all> [count]                       tick; prints role changes the ticks caused
//   propose <id> <data...>                         propose a command (the rest of the line, as a string)
//   propose-conf-change <id> add <x> voter|nonvoter | remove <x>
//   transfer-leadership <id> [target]
//   leader-lost <id> <peer>                        the driver saw every connection to <peer> close
//   process-ready <id...|all>                      handle one Ready each: persist, send, apply, advance
//   deliver-msgs <id...|all> [type=Append] [from=nX] [drop=true]
//   stabilize [id...] [quiet=true]                 process Readies and deliver messages until nothing is left;
//                                                  quiet prints only where each node ended up
//   partition <id...> [/ <id...>]...               groups that cannot talk; unlisted nodes form one more group
//   heal
//   crash <id> | restart <id>                      a crash keeps only what the driver persisted
//   snapshot <id> [index] | compact <id> <index>
//   status <id...|all> | raft-log <id> | machine <id...|all> | network
import { readFileSync, writeFileSync } from 'node:fs';
import type { ConfigChange, MessageType, NodeId } from '../core/types.ts';
import { ProposalRefused } from '../core/types.ts';
import { EnvError, InteractionEnv, StateMachineSafetyViolation, type NodeSettings } from './interaction-env.ts';
import {
  formatConfiguration,
  formatDeliveries,
  formatDownStatus,
  formatDurableLog,
  formatLog,
  formatMachine,
  formatMessage,
  formatReady,
  formatSnapshot,
  formatStabilize,
  formatStatus,
} from './interaction-format.ts';

export interface ScriptCase {
  /** 1-based line of the command. */
  readonly line: number;
  readonly command: string;
  readonly expected: string;
}

type Chunk = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'case'; readonly case: ScriptCase };

export interface CaseResult {
  readonly case: ScriptCase;
  readonly actual: string;
}

export interface ScriptRun {
  readonly results: readonly CaseResult[];
  /** The script with every expected output replaced by the actual one. */
  readonly rewritten: string;
}

/** The script itself is malformed (unknown command, bad argument): a test bug, not a raft outcome. */
export class ScriptError extends Error {
  override readonly name = 'ScriptError';
}

const separator = '----';

const messageTypes: readonly MessageType[] = ['PreVote', 'PreVoteResp', 'Vote', 'VoteResp', 'Append', 'AppendResp', 'Heartbeat', 'HeartbeatResp', 'Snapshot', 'TimeoutNow'];

export function parseScript(text: string): Chunk[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const chunks: Chunk[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '' || line.startsWith('#')) {
      chunks.push({ kind: 'text', text: line });
      i++;
      continue;
    }
    const start = i + 1;
    i++;
    if (lines[i] !== separator) throw new ScriptError(`line ${start}: expected ${separator} after the command "${line}"`);
    i++;
    const output: string[] = [];
    if (lines[i] === separator) {
      // Fenced output: runs until a doubled separator.
      i++;
      while (i < lines.length && !(lines[i] === separator && lines[i + 1] === separator)) output.push(lines[i++]!);
      if (i >= lines.length) throw new ScriptError(`line ${start}: unterminated fenced output`);
      i += 2;
      if (i < lines.length && lines[i]!.trim() === '') i++;
    } else {
      while (i < lines.length && lines[i]!.trim() !== '') output.push(lines[i++]!);
      if (i < lines.length) i++;
    }
    chunks.push({ kind: 'case', case: { line: start, command: line, expected: output.join('\n') } });
  }
  return chunks;
}

function renderCase(command: string, output: string): string {
  const fenced = output.split('\n').some((line) => line.trim() === '') && output !== '';
  return fenced ? `${command}\n${separator}\n${separator}\n${output}\n${separator}\n${separator}\n` : `${command}\n${separator}\n${output}\n`;
}

/** Runs every command of a script against a fresh environment. */
export function runScript(text: string): ScriptRun {
  const chunks = parseScript(text);
  const env = new InteractionEnv();
  const results: CaseResult[] = [];
  const out: string[] = [];
  for (const chunk of chunks) {
    if (chunk.kind === 'text') {
      out.push(`${chunk.text}\n`);
      continue;
    }
    let actual: string;
    try {
      actual = runCommand(env, chunk.case.command).join('\n');
    } catch (error) {
      if (error instanceof ScriptError) throw new ScriptError(`line ${chunk.case.line}: ${error.message}`);
      throw new Error(`line ${chunk.case.line}: ${chunk.case.command}: ${(error as Error).message}`, { cause: error });
    }
    results.push({ case: chunk.case, actual });
    // A case's output is always followed by a blank line, unless the script ends there.
    out.push(`${renderCase(chunk.case.command, actual)}\n`);
  }
  const rewritten = out.join('').replace(/\n+$/, '\n');
  return { results, rewritten };
}

/** The mismatching cases of a run, each with a line diff of expected against actual. */
export function describeMismatches(name: string, run: ScriptRun): string[] {
  return run.results
    .filter((result) => result.actual !== result.case.expected)
    .map((result) => [`${name}:${result.case.line}: ${result.case.command}`, ...lineDiff(result.case.expected, result.actual)].join('\n'));
}

/** Compares a script file with its actual output, or rewrites it when EDGEWARD_REWRITE=1. */
export function checkScriptFile(path: string, name: string, rewrite = process.env.EDGEWARD_REWRITE === '1'): string[] {
  const text = readFileSync(path, 'utf8');
  const run = runScript(text);
  if (rewrite) {
    if (run.rewritten !== text) writeFileSync(path, run.rewritten);
    return [];
  }
  return describeMismatches(name, run);
}

/** A minimal line diff (longest common subsequence): `  ` same, `- ` expected only, `+ ` actual only. */
export function lineDiff(expected: string, actual: string): string[] {
  const a = expected === '' ? [] : expected.split('\n');
  const b = actual === '' ? [] : actual.split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push(`  ${a[i++]}`);
      j++;
    } else if (i < a.length && (j >= b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) lines.push(`- ${a[i++]}`);
    else lines.push(`+ ${b[j++]}`);
  }
  return lines;
}

// ---- commands ------------------------------------------------------------------------------------------------

interface Args {
  readonly name: string;
  readonly positional: readonly string[];
  readonly options: ReadonlyMap<string, string>;
}

function parseArgs(line: string): Args {
  const [name, ...tokens] = line.trim().split(/\s+/);
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (const token of tokens) {
    const eq = token.indexOf('=');
    if (eq > 0 && /^[a-z-]+$/.test(token.slice(0, eq))) options.set(token.slice(0, eq), token.slice(eq + 1));
    else positional.push(token);
  }
  return { name: name!, positional, options };
}

type Handler = (env: InteractionEnv, args: Args, line: string) => string[];

interface Command {
  readonly options: readonly string[];
  /**
   * The command calls a core API that refuses bad requests by throwing (transfer to a non-voter, compact without
   * a snapshot): such an error is an outcome the script records. Elsewhere only the harness's own refusals
   * (node down, not a voter) are; any other error while ticking, stepping or handling a Ready is a broken
   * invariant and fails the script.
   */
  readonly refusals?: boolean;
  /** The rest of the line is free text (a proposal's data), not options to check. */
  readonly freeText?: boolean;
  readonly run: Handler;
}

const commands: Record<string, Command> = {
  'add-nodes': {
    options: ['voters', 'nonvoters', 'election', 'heartbeat', 'prevote', 'checkquorum', 'inflight', 'max-entries'],
    run: (env, args) => {
      const count = integer(one(args, 'a node count'), 'count');
      const voters = args.options.get('voters');
      const nonVoters = args.options.get('nonvoters');
      const bootstrap =
        voters !== undefined || nonVoters !== undefined
          ? { voters: idList(voters), nonVoters: idList(nonVoters) }
          : env.nodeIds().length === 0
            ? ('new-nodes-are-voters' as const)
            : { voters: [], nonVoters: [] };
      const settings: Partial<{ -readonly [K in keyof NodeSettings]: NodeSettings[K] }> = {};
      const option = (key: string, apply: (value: string) => void) => {
        const value = args.options.get(key);
        if (value !== undefined) apply(value);
      };
      option('election', (v) => (settings.electionTicks = integer(v, 'election')));
      option('heartbeat', (v) => (settings.heartbeatTicks = integer(v, 'heartbeat')));
      option('prevote', (v) => (settings.preVote = boolean(v, 'prevote')));
      option('checkquorum', (v) => (settings.checkQuorum = boolean(v, 'checkquorum')));
      option('inflight', (v) => (settings.maxInflight = integer(v, 'inflight')));
      option('max-entries', (v) => (settings.maxEntriesPerAppend = integer(v, 'max-entries')));
      const added = env.addNodes(count, bootstrap, settings);
      const configuration = added[0]!.bootstrap;
      const known = configuration.voters.length + configuration.nonVoters.length > 0 ? formatConfiguration(configuration) : 'no configuration (joining)';
      return [`added ${added.map((node) => node.id).join(' ')}: ${known}`];
    },
  },
  log: {
    options: ['term', 'vote', 'commit'],
    run: (env, args) => {
      const [id, ...specs] = args.positional;
      if (!id || specs.length === 0) throw new ScriptError('usage: log <id> <term>:<count>...');
      const segments = specs.map((spec) => {
        const match = /^(\d+):(\d+)$/.exec(spec);
        if (!match) throw new ScriptError(`bad log segment "${spec}" (want <term>:<count>)`);
        return { term: Number(match[1]), count: Number(match[2]) };
      });
      const term = args.options.get('term');
      const commit = args.options.get('commit');
      env.seedLog(id, segments, {
        ...(term !== undefined ? { term: integer(term, 'term') } : {}),
        ...(commit !== undefined ? { commit: integer(commit, 'commit') } : {}),
        vote: args.options.get('vote') ?? null,
      });
      return [`${id}: ${summarizeLog(env, id)}`];
    },
  },
  campaign: { options: [], run: (env, args) => tickElection(env, one(args, 'a node')) },
  'tick-election': { options: [], run: (env, args) => tickElection(env, one(args, 'a node')) },
  tick: {
    options: [],
    run: (env, args) => {
      const last = args.positional.at(-1);
      const hasCount = last !== undefined && /^\d+$/.test(last);
      const ids = expandIds(env, hasCount ? args.positional.slice(0, -1) : args.positional);
      const count = hasCount ? integer(last, 'count') : 1;
      const before = new Map(ids.map((id) => [id, roleLine(env, id)]));
      for (const id of ids) env.tick(id, count);
      const changes = ids.filter((id) => roleLine(env, id) !== before.get(id)).map((id) => `${id}: ${before.get(id)} -> ${roleLine(env, id)}`);
      return changes.length > 0 ? changes : ['ok'];
    },
  },
  propose: {
    options: [],
    refusals: true,
    freeText: true,
    run: (env, _args, line) => {
      const match = /^\S+\s+(\S+)\s+(.+)$/.exec(line.trim());
      if (!match) throw new ScriptError('usage: propose <id> <data>');
      return refusable(() => {
        const { index, term } = env.propose(match[1]!, match[2]!);
        return [`${match[1]} proposed ${index}/${term}`];
      });
    },
  },
  'propose-conf-change': {
    options: [],
    refusals: true,
    run: (env, args) => {
      const [id, kind, target, suffrage] = args.positional;
      let change: ConfigChange;
      if (kind === 'add' && target && (suffrage === 'voter' || suffrage === 'nonvoter')) change = { kind: 'add', id: target, voter: suffrage === 'voter' };
      else if (kind === 'remove' && target && suffrage === undefined) change = { kind: 'remove', id: target };
      else throw new ScriptError('usage: propose-conf-change <id> add <x> voter|nonvoter | remove <x>');
      return refusable(() => {
        const { index, term } = env.proposeConfigChange(id!, change);
        return [`${id} proposed ${index}/${term}`];
      });
    },
  },
  'transfer-leadership': {
    options: [],
    refusals: true,
    run: (env, args) => {
      const [id, target] = args.positional;
      if (!id || args.positional.length > 2) throw new ScriptError('usage: transfer-leadership <id> [target]');
      return refusable(() => [`${id} transfers leadership to ${env.transferLeadership(id, target)}`]);
    },
  },
  'leader-lost': {
    options: [],
    run: (env, args) => {
      const [id, peer] = args.positional;
      if (!id || !peer || args.positional.length > 2) throw new ScriptError('usage: leader-lost <id> <peer>');
      env.core(id).leaderLost(peer);
      const status = env.core(id).status();
      return [`${id}: ${status.role} term ${status.term} lead ${status.leader ?? '-'}`];
    },
  },
  'process-ready': {
    options: [],
    run: (env, args) =>
      expandIds(env, args.positional).flatMap((id) => {
        const report = env.processReady(id);
        return report ? formatReady(report, true) : [`> ${id} has no ready`];
      }),
  },
  'deliver-msgs': {
    options: ['type', 'from', 'drop'],
    run: (env, args) => {
      const type = args.options.get('type') as MessageType | undefined;
      if (type !== undefined && !messageTypes.includes(type)) throw new ScriptError(`deliver-msgs: unknown message type ${type} (one of ${messageTypes.join(', ')})`);
      const from = args.options.get('from');
      const drop = args.options.has('drop') && boolean(args.options.get('drop')!, 'drop');
      const lines = expandIds(env, args.positional).flatMap((id) => {
        const deliveries = env.deliver(id, { ...(type ? { type } : {}), ...(from ? { from } : {}), drop });
        return deliveries.length > 0 ? formatDeliveries(id, deliveries) : [];
      });
      return lines.length > 0 ? lines : ['no messages'];
    },
  },
  stabilize: {
    options: ['quiet'],
    run: (env, args) => {
      const ids = args.positional.length > 0 ? expandIds(env, args.positional) : undefined;
      const events = env.stabilize(ids);
      if (args.options.has('quiet') && boolean(args.options.get('quiet')!, 'quiet')) return (ids ?? env.nodeIds()).map((id) => summarizeNode(env, id));
      const lines = formatStabilize(events);
      return lines.length > 0 ? lines : ['ok'];
    },
  },
  partition: {
    options: [],
    run: (env, args) => {
      const groups: string[][] = [[]];
      for (const token of args.positional) {
        if (token === '/') groups.push([]);
        else groups.at(-1)!.push(token);
      }
      if (groups.some((group) => group.length === 0)) throw new ScriptError('usage: partition <id...> [/ <id...>]...');
      env.partition(groups);
      return [`partitioned: ${env.partitionGroups().map((group) => `(${group.join(' ')})`).join(' ')}`];
    },
  },
  heal: {
    options: [],
    run: (env) => {
      env.heal();
      return ['healed'];
    },
  },
  crash: {
    options: [],
    run: (env, args) => {
      const id = one(args, 'a node');
      env.crash(id);
      return [`${id} crashed`];
    },
  },
  restart: {
    options: [],
    run: (env, args) => {
      const id = one(args, 'a node');
      env.restart(id);
      return [`${id} restarted: ${roleLine(env, id)}, ${summarizeLog(env, id)}`];
    },
  },
  snapshot: {
    options: [],
    refusals: true,
    run: (env, args) => {
      const [id, index] = args.positional;
      if (!id || args.positional.length > 2) throw new ScriptError('usage: snapshot <id> [index]');
      const snapshot = env.snapshot(id, index === undefined ? undefined : integer(index, 'index'));
      return [`${id} snapshot ${formatSnapshot(snapshot)}`];
    },
  },
  compact: {
    options: [],
    refusals: true,
    run: (env, args) => {
      const [id, index] = args.positional;
      if (!id || index === undefined || args.positional.length > 2) throw new ScriptError('usage: compact <id> <index>');
      env.compact(id, integer(index, 'index'));
      return [`${id}: ${summarizeLog(env, id)}`];
    },
  },
  status: {
    options: [],
    run: (env, args) =>
      expandIds(env, args.positional).flatMap((id) => {
        const node = env.node(id);
        return node.core ? formatStatus(node.core.status()) : formatDownStatus(node);
      }),
  },
  'raft-log': {
    options: [],
    run: (env, args) => {
      const node = env.node(one(args, 'a node'));
      return node.core ? formatLog(node.core.log) : formatDurableLog(node.durable);
    },
  },
  machine: {
    options: [],
    run: (env, args) => expandIds(env, args.positional).map((id) => formatMachine(id, env.node(id).machine)),
  },
  network: {
    options: [],
    run: (env) => {
      const messages = env.inFlight();
      return messages.length > 0 ? messages.map(formatMessage) : ['(empty)'];
    },
  },
};

function runCommand(env: InteractionEnv, line: string): string[] {
  const args = parseArgs(line);
  const command = commands[args.name];
  if (!command) throw new ScriptError(`unknown command "${args.name}"`);
  if (!command.freeText) for (const key of args.options.keys()) if (!command.options.includes(key)) throw new ScriptError(`${args.name}: unknown option ${key}=`);
  try {
    return command.run(env, args, line);
  } catch (error) {
    if (error instanceof EnvError || (command.refusals && error instanceof Error && !(error instanceof StateMachineSafetyViolation))) return [`error: ${error.message}`];
    throw error;
  }
}

function tickElection(env: InteractionEnv, id: NodeId): string[] {
  const ticks = env.tickUntilCampaign(id);
  return [`${id} campaigns after ${ticks} ticks: ${roleLine(env, id)}`];
}

/** A proposal outcome: accepted, or refused with the core's reason. */
function refusable(run: () => string[]): string[] {
  try {
    return run();
  } catch (error) {
    if (error instanceof ProposalRefused) return [`refused: ${error.reason}${error.leader ? ` (leader is ${error.leader})` : ''}`];
    throw error;
  }
}

function roleLine(env: InteractionEnv, id: NodeId): string {
  const node = env.node(id);
  if (!node.core) return 'down';
  const status = node.core.status();
  return `${status.role} term ${status.term}`;
}

/** One line for `stabilize quiet=true`: where a node ended up. */
function summarizeNode(env: InteractionEnv, id: NodeId): string {
  const node = env.node(id);
  if (!node.core) return `${id}: down`;
  const status = node.core.status();
  return `${id}: ${status.role} term ${status.term} lead ${status.leader ?? '-'} commit ${status.commit} applied ${status.applied} last ${status.lastIndex}/${status.lastTerm}`;
}

function summarizeLog(env: InteractionEnv, id: NodeId): string {
  const core = env.core(id);
  const status = core.status();
  const range = status.firstIndex > status.lastIndex ? 'log empty' : `log ${status.firstIndex}..${status.lastIndex}`;
  const compacted = status.firstIndex > 1 ? ` after snapshot ${status.firstIndex - 1}/${core.log.snapshotTerm}` : '';
  return `${range}${compacted} last ${status.lastIndex}/${status.lastTerm} term ${status.term} commit ${status.commit}`;
}

function expandIds(env: InteractionEnv, tokens: readonly string[]): NodeId[] {
  if (tokens.length === 0) throw new ScriptError('expected node ids or all');
  const ids = tokens.length === 1 && tokens[0] === 'all' ? env.nodeIds() : [...tokens];
  for (const id of ids) env.node(id);
  return ids;
}

function one(args: Args, what: string): string {
  if (args.positional.length !== 1) throw new ScriptError(`${args.name}: expected ${what}`);
  return args.positional[0]!;
}

function idList(value: string | undefined): NodeId[] {
  return value === undefined || value === '' ? [] : value.split(',');
}

function integer(value: string, what: string): number {
  if (!/^\d+$/.test(value)) throw new ScriptError(`${what}: "${value}" is not a whole number`);
  return Number(value);
}

function boolean(value: string, what: string): boolean {
  if (value !== 'true' && value !== 'false') throw new ScriptError(`${what}: "${value}" is not true or false`);
  return value === 'true';
}
