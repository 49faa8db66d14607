// The controller memory bench's child process: a model store (LevelDB ctrl.db in a temp folder) behind the model's
// state machine, loaded the way a controller applies committed entries (`identity.create` and the policy and router
// commands, one raft index each, in batches as raft hands them over), measured between steps. The parent
// (controller-memory-bench.ts) asks over IPC; every answer is one message. Run with --expose-gc: every memory figure
// is taken after two full collections, so it is what the model holds, not garbage waiting.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import v8 from 'node:v8';
import { newEntityId } from '../server/edge/ids.ts';
import type { ModelCommand } from '../server/model/commands.ts';
import { createModelTables } from '../server/model/entities.ts';
import { ModelStateMachine } from '../server/model/model-state-machine.ts';
import type { CommittedEntry } from '../server/raft/state-machine.ts';
import type { Identity } from '../server/model/entities.ts';
import type { Row } from '../server/store/entity-table.ts';
import { RowOrder } from '../server/store/row-order.ts';
import { ModelStore } from '../server/store/model-store.ts';

export type ModelRequest =
  | { readonly kind: 'open' }
  | { readonly kind: 'policies'; readonly routers: number; readonly services: number; readonly servicePolicies: number; readonly edgeRouterPolicies: number }
  | { readonly kind: 'load'; readonly identities: number }
  | { readonly kind: 'reopen' }
  | { readonly kind: 'probe'; readonly seconds: number; readonly rate: number }
  | { readonly kind: 'breakdown'; readonly identityHeapBytes: number }
  | { readonly kind: 'heapSnapshot'; readonly path: string }
  | { readonly kind: 'close' };

export interface GcFigures {
  readonly scavenges: number;
  readonly scavengeMs: number;
  readonly scavengeP99Ms: number;
  readonly markCompacts: number;
  readonly markCompactMs: number;
  readonly markCompactP99Ms: number;
}

export interface MemoryFigures {
  readonly identities: number;
  readonly heapUsedBytes: number;
  /** What V8 holds from the system for its heap (used and free). */
  readonly heapTotalBytes: number;
  readonly rssBytes: number;
  readonly externalBytes: number;
  /** Rows of every table (identities, routers, services, policies, …). */
  readonly rows: number;
}

export interface LoadFigures {
  readonly added: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly gc: GcFigures;
  readonly memory: MemoryFigures;
}

export interface ProbeFigures {
  readonly writes: number;
  readonly latenciesMs: number[];
  readonly cpuSeconds: number;
  readonly gc: GcFigures;
  /** A scavenge forced after every fifth write (outside the write's time): what one costs at this model size. */
  readonly forcedScavengesMs: number[];
}

/** Bytes a part of the identities' share of the model costs (see breakdown()). */
export interface BreakdownPart {
  readonly part: string;
  readonly bytes: number;
}

export type ModelAnswer =
  | { readonly kind: 'opened'; readonly memory: MemoryFigures }
  | { readonly kind: 'loaded'; readonly figures: LoadFigures }
  | { readonly kind: 'reopened'; readonly memory: MemoryFigures; readonly seconds: number }
  | { readonly kind: 'probed'; readonly figures: ProbeFigures }
  | { readonly kind: 'breakdown'; readonly parts: BreakdownPart[]; readonly memory: MemoryFigures }
  | { readonly kind: 'closed' }
  | { readonly kind: 'heapSnapshot'; readonly path: string }
  | { readonly kind: 'failed'; readonly message: string };

const gcCollect = (globalThis as { gc?: () => void }).gc;
if (gcCollect === undefined) throw new Error('controller-memory-model.ts needs --expose-gc');

/** Roles an identity carries: a realistic spread, so policies select subsets (as bench/scale-bench.ts loads them). */
const groups = 200;
const sites = 50;
/** How long the probe waits after its full collections before it starts. */
const probeSettleMs = 5000;
/** Entries per apply call: what raft hands the state machine per round under load. */
const applyBatch = 64;

let dir: string | undefined;
let store: ModelStore | undefined;
let machine: ModelStateMachine | undefined;
let index = 0;
let identities = 0;
const probeTargets: string[] = [];

function collect(): void {
  gcCollect!();
  gcCollect!();
}

function memory(): MemoryFigures {
  collect();
  const usage = process.memoryUsage();
  let rows = 0;
  for (const table of store?.entityTables() ?? []) rows += table.size;
  return { identities, heapUsedBytes: usage.heapUsed, heapTotalBytes: usage.heapTotal, rssBytes: usage.rss, externalBytes: usage.external, rows };
}

/** GC pauses between start() and stop(), by kind (perf_hooks `gc` entries). */
function gcWatch(): { stop(): GcFigures } {
  const scavenges: number[] = [];
  const marks: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) scavenges.push(entry.duration);
      else if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) marks.push(entry.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      for (const entry of observer.takeRecords()) {
        const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
        if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) scavenges.push(entry.duration);
        else if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) marks.push(entry.duration);
      }
      observer.disconnect();
      const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
      const p99 = (values: number[]) => {
        if (values.length === 0) return 0;
        const sorted = [...values].sort((a, b) => a - b);
        return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
      };
      return { scavenges: scavenges.length, scavengeMs: sum(scavenges), scavengeP99Ms: p99(scavenges), markCompacts: marks.length, markCompactMs: sum(marks), markCompactP99Ms: p99(marks) };
    },
  };
}

const cpuSeconds = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

async function applyAll(commands: ModelCommand[]): Promise<void> {
  for (let from = 0; from < commands.length; from += applyBatch) {
    const entries: CommittedEntry[] = commands.slice(from, from + applyBatch).map((command) => ({ index: ++index, term: 1, command }));
    const results = await machine!.apply(entries);
    const refused = results.find((result) => !result.ok);
    if (refused) throw new Error(`a bench command was refused: ${JSON.stringify(refused)}`);
  }
}

const now = () => new Date().toISOString();
const base = (id: string) => ({ id, createdAt: now(), updatedAt: now(), tags: {} });

/** An identity as a leader applies one: the request body JSON.parse'd as the web layer does (so its short strings are
 * internalized as V8's JSON parser does with values up to 10 characters), then the row as IdentityService.create
 * makes it: one object literal, createdAt and updatedAt one string. (Built as `{ ...base(id), name, … }` instead,
 * every row got its own hidden class and descriptor array once the spread's inline cache warmed up: ~440 bytes more
 * per row.) */
function identityCommand(n: number): ModelCommand {
  const input = JSON.parse(`{"name":"bench-identity-${n}","isAdmin":false,"roleAttributes":["group-${n % groups}","site-${n % sites}"]}`) as { name: string; isAdmin: boolean; roleAttributes: string[] };
  const at = now();
  return {
    type: 'identity.create',
    identity: {
      id: newEntityId(),
      createdAt: at,
      updatedAt: at,
      tags: {},
      name: input.name,
      typeId: 'Default',
      isAdmin: input.isAdmin,
      isDefaultAdmin: false,
      authPolicyId: 'default',
      externalId: null,
      roleAttributes: [...input.roleAttributes],
      disabledAt: null,
      disabledUntil: null,
    },
    authenticators: [],
    enrollments: [],
  };
}

async function loadPolicies(request: Extract<ModelRequest, { kind: 'policies' }>): Promise<void> {
  const commands: ModelCommand[] = [];
  for (let n = 0; n < request.routers; n++) {
    const id = newEntityId();
    commands.push({
      type: 'edgeRouter.create',
      router: {
        ...base(id), name: `bench-router-${n}`, roleAttributes: [`region-${n % 20}`], isTunnelerEnabled: false, cost: 0, noTraversal: false, disabled: false, appData: {},
        isVerified: false, fingerprint: null, certPem: null, enrollmentToken: `bench-token-${n}-${id}`, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null,
      },
    } as ModelCommand);
  }
  for (let n = 0; n < request.services; n++) {
    commands.push({ type: 'service.create', service: { ...base(newEntityId()), name: `bench-service-${n}`, encryptionRequired: true, configs: [], roleAttributes: [`app-${n % 100}`], terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 } } as ModelCommand);
  }
  for (let n = 0; n < request.servicePolicies; n++) {
    commands.push({
      type: 'servicePolicy.create',
      policy: { ...base(newEntityId()), name: `bench-sp-${n}`, type: n % 2 === 0 ? 'Dial' : 'Bind', semantic: 'AnyOf', identityRoles: [`#group-${n % groups}`], serviceRoles: [`#app-${n % 100}`], postureCheckRoles: [] },
    } as ModelCommand);
  }
  for (let n = 0; n < request.edgeRouterPolicies; n++) {
    commands.push({ type: 'edgeRouterPolicy.create', policy: { ...base(newEntityId()), name: `bench-erp-${n}`, semantic: 'AnyOf', identityRoles: [`#site-${n % sites}`], edgeRouterRoles: [`#region-${n % 20}`] } } as ModelCommand);
  }
  await applyAll(commands);
}

async function load(target: number): Promise<LoadFigures> {
  const watch = gcWatch();
  const started = performance.now();
  const cpuBefore = cpuSeconds();
  const from = identities;
  // In slices, so the commands of a whole step are never all alive at once (raft hands them over a round at a time).
  while (identities < target) {
    const slice: ModelCommand[] = [];
    for (let n = identities; n < Math.min(target, identities + 4096); n++) slice.push(identityCommand(n));
    await applyAll(slice);
    for (const command of slice) if (probeTargets.length < 500) probeTargets.push((command as { identity: { id: string } }).identity.id);
    identities += slice.length;
    // Let the store's trailing writes run, as the raft loop leaves room for them.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await store!.flush();
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds() - cpuBefore;
  const gc = watch.stop();
  return { added: identities - from, seconds, cpuSeconds: cpu, gc, memory: memory() };
}

/** Writes at a steady rate (open loop), each an `identity.update` of one of the first 500 identities' tags, timed from
 * its due time until it is applied and written to LevelDB (the store's write forced at once, not after its 50 ms). */
async function probe(seconds: number, rate: number): Promise<ProbeFigures> {
  if (probeTargets.length === 0) {
    await applyAll([identityCommand(identities++)]);
    probeTargets.push(...store!.table<Row>('identities').all().map((row) => row.id).slice(0, 500));
  }
  collect();
  // The full collections leave old-generation pages to sweep concurrently, and a scavenge meanwhile costs 2 to 5
  // times as much (at 300k identities, forced scavenge p50 1.5 ms right after, 0.67 ms 5 s later): wait them out,
  // so the probe measures the model, not the collection the bench itself forced.
  await new Promise((resolve) => setTimeout(resolve, probeSettleMs));
  const watch = gcWatch();
  const cpuBefore = cpuSeconds();
  const latencies: number[] = [];
  const forced: number[] = [];
  const count = Math.max(1, Math.round(seconds * rate));
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    const due = started + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const id = probeTargets[n % probeTargets.length]!;
    await applyAll([{ type: 'identity.update', id, at: now(), changes: { tags: { probe: `${n}` } } }]);
    await store!.flush();
    latencies.push(performance.now() - due);
    if (n % 5 === 4) {
      const before = performance.now();
      (gcCollect as unknown as (options: { type: 'minor' }) => void)({ type: 'minor' });
      forced.push(performance.now() - before);
    }
  }
  const cpu = cpuSeconds() - cpuBefore;
  return { writes: count, latenciesMs: latencies, cpuSeconds: cpu, gc: watch.stop(), forcedScavengesMs: forced };
}

/** What each part of the identities table costs, each built again beside the table from its rows (exactly as the
 * table builds it) and measured alone, then dropped; the row objects are what is left of the identities' share. And
 * one raft log entry per identity as the core keeps it until a snapshot compacts it: an entry of an `identity.create`
 * decoded from its JSON (a follower), with its text (kept until every follower holds the entry). */
function breakdown(identityHeapBytes: number): BreakdownPart[] {
  const table = store!.table<Identity>('identities');
  const rows = table.all();
  const count = rows.length;
  const parts: BreakdownPart[] = [];
  const measure = (part: string, build: () => unknown) => {
    const before = memory().heapUsedBytes;
    let built: unknown = build();
    const after = memory().heapUsedBytes;
    built = undefined;
    void built;
    parts.push({ part, bytes: after - before });
  };
  measure('rows Map (id → row)', () => new Map(rows.map((row) => [row.id, row])));
  measure('unique index name (name → id)', () => new Map(rows.map((row) => [row.name, row.id])));
  measure('multi index authPolicyId (value → Set of ids)', () => {
    const index = new Map<string, Set<string>>();
    for (const row of rows) {
      let ids = index.get(row.authPolicyId);
      if (!ids) index.set(row.authPolicyId, (ids = new Set()));
      ids.add(row.id);
    }
    return index;
  });
  measure('id order (RowOrder)', () => {
    const order = new RowOrder<Identity>();
    for (const row of rows) order.put(row);
    void order.size; // places the rows waiting in its backlog
    return order;
  });
  const structures = parts.reduce((sum, part) => sum + part.bytes, 0);
  parts.push({ part: 'row objects, their strings and arrays (the rest)', bytes: identityHeapBytes - structures });
  // The core's entries share their command (and so the row) with the table while the row is the current one.
  const sample = rows.slice(0, Math.min(count, 100_000));
  const perEntry = (bytes: number) => Math.round((bytes / Math.max(1, sample.length)) * count);
  measure('raft log: one entry per identity, its row shared with the table (extrapolated from 100k)', () =>
    sample.map((row, i) => ({ index: i + 1, term: 1, type: 'normal', data: { type: 'identity.create', identity: row, authenticators: [], enrollments: [] } })),
  );
  parts[parts.length - 1] = { part: parts[parts.length - 1]!.part, bytes: perEntry(parts[parts.length - 1]!.bytes) };
  measure('raft log: the same entries\' JSON text (on a leader until every follower holds them; extrapolated from 100k)', () =>
    sample.map((row, i) => JSON.stringify({ index: i + 1, term: 1, type: 'normal', data: { type: 'identity.create', identity: row, authenticators: [], enrollments: [] } })),
  );
  parts[parts.length - 1] = { part: parts[parts.length - 1]!.part, bytes: perEntry(parts[parts.length - 1]!.bytes) };
  return parts;
}

async function handle(request: ModelRequest): Promise<ModelAnswer> {
  switch (request.kind) {
    case 'open':
      dir = mkdtempSync(join(tmpdir(), 'edgeward-memory-bench-'));
      store = await ModelStore.open(join(dir, 'ctrl.db'), createModelTables());
      machine = new ModelStateMachine(store);
      return { kind: 'opened', memory: memory() };
    case 'policies':
      await loadPolicies(request);
      await store!.flush();
      return { kind: 'loaded', figures: { added: 0, seconds: 0, cpuSeconds: 0, gc: gcWatch().stop(), memory: memory() } };
    case 'load':
      return { kind: 'loaded', figures: await load(request.identities) };
    case 'reopen': {
      // A controller that restarts: every row read back from ctrl.db's JSON, none sharing a string with another.
      await store!.close();
      store = undefined;
      machine = undefined;
      collect();
      const started = performance.now();
      store = await ModelStore.open(join(dir!, 'ctrl.db'), createModelTables());
      machine = new ModelStateMachine(store);
      const seconds = (performance.now() - started) / 1000;
      return { kind: 'reopened', memory: memory(), seconds };
    }
    case 'probe':
      return { kind: 'probed', figures: await probe(request.seconds, request.rate) };
    case 'breakdown': {
      const parts = breakdown(request.identityHeapBytes);
      return { kind: 'breakdown', parts, memory: memory() };
    }
    case 'heapSnapshot':
      collect();
      return { kind: 'heapSnapshot', path: v8.writeHeapSnapshot(request.path) };
    case 'close':
      await store?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
      return { kind: 'closed' };
  }
}

process.on('message', (request: ModelRequest) => {
  handle(request).then(
    (answer) => process.send!(answer),
    (error: Error) => process.send!({ kind: 'failed', message: error.stack ?? error.message } satisfies ModelAnswer),
  );
});
process.on('disconnect', () => {
  void (async () => {
    await store?.close().catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  })();
});
