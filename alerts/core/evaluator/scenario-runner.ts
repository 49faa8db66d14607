// Runs evaluator scenarios written like the raft interaction scripts (etcd's datadriven format): a command, a
// `----` line, the expected output, a blank line; `#` lines are comments. Log lines, events and metric expositions
// are built as the controller writes them and go through the same scanner and parsers as the daemon's, so a
// scenario covers the whole pure path from bytes to alert changes. Time is virtual: `+1m` is one minute after the
// scenario's start. Pure: the test reads the files and compares, or rewrites them (EDGEWARD_REWRITE=1).
//
// Commands:
//   settings [controllers=a,b,c] [events=a,b] [preferred=a] [<rule>=<value>...]   a fresh evaluator; rule keys are
//            those of the config's `rules:` (`peerFlapping.count=3`, `leaderlessTolerance=30s`)
//   advance <duration>                                  move the clock without a tick
//   tick [<duration>]                                   move the clock, then tick
//   log <controller> [at=<offset>] [<field>=<value>...] "<msg>"      a JSON log line; its `component` is `test`
//            unless a field sets it (a rule matches only its emitter's component: `component=cluster`)
//   event <controller> <eventType> [at=<offset>] [peer=<id>] [preferred=true|false] [leader=<id>]
//   entity <controller> <raftIndex> [at=<offset>]       an entity change event
//   health <controller>=<status|unreachable>...
//   metrics <controller> [leader=0|1] [has_leader=0|1] [read_only=0|1] [voters=N] [connected=N] [queue=N]
//           [window=N] [latency.<channel>=<sum seconds>/<count>]...   a /metrics exposition
//   metrics-failed <controller>
//   firing | lag                                        the firing instances; commit lag per controller
import { formatDuration, parseGoDuration } from '../../../common/config/go-duration.ts';
import { validate } from '../../../common/config/schema.ts';
import { rulesSchema } from '../../config/alerts-config-schema.ts';
import { LineScanner } from '../matching/line-scanner.ts';
import { logNeedleTable, matchLogLine } from '../matching/log-line.ts';
import { parseClusterEvent, parseEntityChange } from '../matching/event-line.ts';
import { controllerMetricsView } from '../metrics/controller-metrics-view.ts';
import { parsePrometheusText } from '../metrics/prometheus-text.ts';
import { logRules } from '../rules/alert-rules.ts';
import { instanceKey } from './alert-change.ts';
import type { AlertChange } from './alert-change.ts';
import { Evaluator } from './evaluator.ts';
import type { RuleSettings } from './rule-settings.ts';

export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

const separator = '----';
const start = Date.UTC(2026, 0, 1);
const needleTable = logNeedleTable(logRules);

interface Case {
  readonly line: number;
  readonly command: string;
  readonly expected: string;
}
type Chunk = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'case'; readonly case: Case };

function parseScenario(text: string): Chunk[] {
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
    const at = i + 1;
    i++;
    if (lines[i] !== separator) throw new ScenarioError(`line ${at}: expected ${separator} after "${line}"`);
    i++;
    const output: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '') output.push(lines[i++]!);
    if (i < lines.length) i++;
    chunks.push({ kind: 'case', case: { line: at, command: line, expected: output.join('\n') } });
  }
  return chunks;
}

/** Splits a command into words; "double quoted" text (JSON string syntax) may hold spaces, also after `key=`. */
function words(command: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  let at = 0;
  while (at < command.length) {
    const char = command[at]!;
    if (char === ' ') {
      if (word !== undefined) out.push(word);
      word = undefined;
      at++;
    } else if (char === '"') {
      let end = at + 1;
      while (end < command.length && command[end] !== '"') end += command[end] === '\\' ? 2 : 1;
      word = (word ?? '') + (JSON.parse(command.slice(at, end + 1)) as string);
      at = end + 1;
    } else {
      word = (word ?? '') + char;
      at++;
    }
  }
  if (word !== undefined) out.push(word);
  return out;
}

function options(args: readonly string[]): { named: Map<string, string>; plain: string[] } {
  const named = new Map<string, string>();
  const plain: string[] = [];
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq > 0 && /^[\w.]+$/.test(arg.slice(0, eq))) named.set(arg.slice(0, eq), arg.slice(eq + 1));
    else plain.push(arg);
  }
  return { named, plain };
}

function duration(text: string): number {
  const ms = parseGoDuration(text);
  if (ms === undefined) throw new ScenarioError(`"${text}" is not a duration`);
  return ms;
}

const offset = (ms: number) => (ms >= start ? `+${formatDuration(ms - start)}` : `-${formatDuration(start - ms)}`);

export function defaultRuleSettings(overrides: Readonly<Record<string, string>> = {}): RuleSettings {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(overrides)) {
    const path = key.split('.');
    let node = input;
    for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[path.at(-1)!] = /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  const result = validate(rulesSchema, input, { baseDir: '/' });
  if (!result.value) throw new ScenarioError(`bad settings: ${result.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}`);
  return result.value;
}

class Scenario {
  private evaluator: Evaluator | undefined;
  private now = start;

  run(command: string): string {
    const [verb, ...args] = words(command);
    switch (verb) {
      case 'settings':
        return this.settings(args);
      case 'advance':
        this.now += duration(args[0] ?? '0s');
        return `now ${offset(this.now)}`;
      case 'tick':
        this.now += duration(args[0] ?? '0s');
        return this.changes(this.need().step({ kind: 'tick', now: this.now }));
      case 'log':
        return this.log(args);
      case 'event':
        return this.event(args);
      case 'entity':
        return this.entity(args);
      case 'health':
        return this.changes(
          args.flatMap((arg) => {
            const [controller, status] = arg.split('=');
            if (!controller || !status) throw new ScenarioError(`health wants <controller>=<status>, got ${arg}`);
            const value = status === 'unreachable' ? 'unreachable' : Number(status);
            return this.need().step({ kind: 'health', now: this.now, controller, status: value });
          }),
        );
      case 'metrics':
        return this.metrics(args);
      case 'metrics-failed':
        return this.changes(this.need().step({ kind: 'metrics', now: this.now, controller: args[0] ?? '' }));
      case 'firing': {
        const firing = this.need().firing();
        if (firing.length === 0) return '(none firing)';
        return firing.map((instance) => `${instanceKey(instance.alert, instance.labels)} since ${offset(instance.startsAt)}`).sort().join('\n');
      }
      case 'lag':
        return Object.entries(this.need().commitLag(this.now))
          .map(([controller, lag]) => `${controller}: entries ${lag.entries ?? '-'} seconds ${lag.seconds}`)
          .join('\n');
      default:
        throw new ScenarioError(`unknown command ${verb}`);
    }
  }

  private need(): Evaluator {
    if (!this.evaluator) throw new ScenarioError('run "settings" first');
    return this.evaluator;
  }

  private settings(args: readonly string[]): string {
    const { named } = options(args);
    const controllers = (named.get('controllers') ?? 'ctrl1,ctrl2,ctrl3').split(',');
    const events = named.has('events') ? named.get('events')!.split(',').filter(Boolean) : controllers;
    const preferred = named.has('preferred') ? named.get('preferred')!.split(',').filter(Boolean) : [];
    for (const key of ['controllers', 'events', 'preferred']) named.delete(key);
    const rules = defaultRuleSettings(Object.fromEntries(named));
    this.evaluator = new Evaluator({ controllers, commitLagControllers: events, preferredLeaders: preferred, rules });
    this.now = start;
    return `controllers ${controllers.join(',')}; events from ${events.join(',') || '-'}; preferred ${preferred.join(',') || '-'}`;
  }

  private log(args: readonly string[]): string {
    const [controller, ...rest] = args;
    const { named, plain } = options(rest);
    const at = named.has('at') ? this.now + duration(named.get('at')!) : this.now;
    named.delete('at');
    const line: Record<string, unknown> = { level: 'info', time: new Date(at).toISOString(), msg: plain.join(' '), component: 'test', controllerId: controller };
    for (const [key, value] of named) line[key] = value;
    const scanner = new LineScanner({ needles: needleTable.needles, maxLineBytes: 1 << 20 });
    const { matches } = scanner.scan(Buffer.from(`${JSON.stringify(line)}\n`));
    const out: string[] = [];
    for (const match of matches) {
      const outcome = matchLogLine(match, needleTable);
      if (outcome.kind !== 'matched') {
        out.push(`(${outcome.kind})`);
        continue;
      }
      for (const [index, rule] of outcome.rules.entries()) {
        out.push(`rule ${rule.id}`);
        const changes = this.need().step({ kind: 'log', now: this.now, controller: controller!, rule: rule.id, line: outcome.lines[index]!, ...outcome.record });
        if (changes.length > 0) out.push(this.changes(changes));
      }
    }
    return out.length === 0 ? '(no rule matched)' : out.join('\n');
  }

  private event(args: readonly string[]): string {
    const [controller, eventType, ...rest] = args;
    const { named } = options(rest);
    const at = named.has('at') ? this.now + duration(named.get('at')!) : this.now;
    const event: Record<string, unknown> = { namespace: 'cluster', event_src_id: controller, timestamp: new Date(at).toISOString(), eventType, index: 7, raftIndex: 7 };
    if (named.has('peer')) {
      const preferred = named.get('preferred');
      event.peers = [{ id: named.get('peer'), addr: 'tls:127.0.0.1:6262', version: 'v0.1.0', apiAddresses: null, isPreferredLeader: preferred === 'true' }];
    }
    if (named.has('leader')) event.leaderId = named.get('leader');
    const parsed = parseClusterEvent(JSON.stringify(event));
    if (!parsed.ok) throw new ScenarioError(parsed.reason);
    return this.changes(this.need().step({ kind: 'cluster-event', now: this.now, controller: controller!, ...parsed.value }));
  }

  private entity(args: readonly string[]): string {
    const [controller, index, ...rest] = args;
    const { named } = options(rest);
    const at = named.has('at') ? this.now + duration(named.get('at')!) : this.now;
    const event = {
      namespace: 'entityChange',
      event_src_id: controller,
      timestamp: new Date(at).toISOString(),
      eventId: 'e1',
      eventType: 'created',
      entityType: 'identities',
      raftIndex: Number(index),
      metadata: { raft_index: Number(index), version: 'v0.1.0', command: 'identity.create' },
      initialState: null,
      finalState: { id: 'x' },
    };
    const parsed = parseEntityChange(JSON.stringify(event));
    if (!parsed.ok) throw new ScenarioError(parsed.reason);
    return this.changes(this.need().step({ kind: 'entity-change', now: this.now, controller: controller!, ...parsed.value }));
  }

  private metrics(args: readonly string[]): string {
    const [controller, ...rest] = args;
    const { named } = options(rest);
    const gauges: Record<string, string> = {
      leader: 'edgeward_raft_is_leader',
      has_leader: 'edgeward_raft_has_leader',
      read_only: 'edgeward_cluster_read_only',
      voters: 'edgeward_raft_voters',
      connected: 'edgeward_raft_voters_connected',
      queue: 'edgeward_raft_rate_limiter_queue_size',
      window: 'edgeward_raft_rate_limiter_window_size',
    };
    const lines: string[] = [];
    for (const [key, value] of named) {
      if (key.startsWith('latency.')) {
        const channel = key.slice('latency.'.length);
        const [sum, count] = value.split('/');
        const label = `channel_id="${channel}"`;
        lines.push(
          '# TYPE edgeward_peer_latency_seconds histogram',
          `edgeward_peer_latency_seconds_bucket{${label},le="0.005"} 0`,
          `edgeward_peer_latency_seconds_bucket{${label},le="+Inf"} ${count}`,
          `edgeward_peer_latency_seconds_sum{${label}} ${sum}`,
          `edgeward_peer_latency_seconds_count{${label}} ${count}`,
        );
      } else if (gauges[key]) {
        lines.push(`# HELP ${gauges[key]} test`, `# TYPE ${gauges[key]} gauge`, `${gauges[key]} ${value}`);
      } else {
        throw new ScenarioError(`unknown metric ${key}`);
      }
    }
    const parsed = parsePrometheusText(`${lines.join('\n')}\n`);
    if (parsed.errors.length > 0) throw new ScenarioError(parsed.errors.map((error) => error.message).join('; '));
    return this.changes(this.need().step({ kind: 'metrics', now: this.now, controller: controller!, view: controllerMetricsView(parsed.samples) }));
  }

  private changes(changes: readonly AlertChange[]): string {
    if (changes.length === 0) return '(no alert changes)';
    return changes
      .map((change) => {
        const key = instanceKey(change.alert, change.labels);
        const value = change.value === undefined ? '' : ` value=${Number(change.value.toPrecision(6))}`;
        if (change.change === 'resolved') return `resolved ${key} since ${offset(change.startsAt)} until ${offset(change.endsAt)}`;
        return `firing ${key} since ${offset(change.startsAt)}${value}: ${change.detail}`;
      })
      .join('\n');
  }
}

export interface ScenarioResult {
  readonly mismatches: readonly string[];
  readonly rewritten: string;
}

export function runScenario(text: string, name: string): ScenarioResult {
  const scenario = new Scenario();
  const mismatches: string[] = [];
  const out: string[] = [];
  for (const chunk of parseScenario(text)) {
    if (chunk.kind === 'text') {
      out.push(`${chunk.text}\n`);
      continue;
    }
    let actual: string;
    try {
      actual = scenario.run(chunk.case.command);
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      actual = `error: ${error.message}`;
    }
    if (actual !== chunk.case.expected) {
      mismatches.push(`${name}:${chunk.case.line}: ${chunk.case.command}\n--- expected\n${chunk.case.expected}\n+++ actual\n${actual}`);
    }
    // The blank line that ends a case's output belongs to the case.
    out.push(`${chunk.case.command}\n${separator}\n${actual}\n\n`);
  }
  return { mismatches, rewritten: `${out.join('').trimEnd()}\n` };
}
