// The router simulator benchmark's figures and its section of bench/RESULTS.md: enrollment rate, time to connect
// every simulated router, terminators as the management API lists them over time (leader and follower), the time of
// each tenth of them (15,000 at 150,000) and last/first, each controller's CPU and RSS idle without routers (the
// baseline) and with all of them connected, and the router list's latency at that size. Pure: the run in, text out.
import { percentile, replaceSection } from './raft-bench-report.ts';

/** One poll of `GET /terminators?limit=1`: ms since the routers began to dial, and its totalCount. */
export interface CountSample {
  readonly atMs: number;
  readonly count: number;
}

export interface TerminatorTimeline {
  readonly controller: string;
  readonly role: 'leader' | 'follower';
  readonly samples: readonly CountSample[];
}

/** One controller over an idle window: CPU used and RSS at its end. */
export interface IdleFigures {
  readonly seconds: number;
  readonly cpuSeconds: number | undefined;
  readonly rssBytes: number | undefined;
}

export interface ControllerIdle {
  readonly controller: string;
  readonly role: 'leader' | 'follower';
  /** Enrolled routers, none connected. */
  readonly baseline: IdleFigures;
  /** Every router connected, its terminators registered: heartbeats and metrics only. */
  readonly connected: IdleFigures;
  /** From the first dial until every router was connected and every terminator listed (polls included). */
  readonly arrival?: IdleFigures;
}

export interface ListLatency {
  readonly controller: string;
  readonly role: 'leader' | 'follower';
  readonly filter: string;
  readonly samplesMs: readonly number[];
  readonly failures: number;
}

export interface RouterSimRun {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number; readonly loadAverageAtEnd: number };
  readonly routers: number;
  readonly terminatorsPerRouter: number;
  readonly model: { readonly services: number; readonly servicePolicies: number; readonly edgeRouterPolicies: number; readonly identities: number; readonly groups: number; readonly seconds: number };
  readonly enrollment: { readonly seconds: number; readonly concurrency: number; readonly stepMs: Readonly<Record<string, number>> };
  readonly connect: {
    /** From the first dial to the last welcome. */
    readonly seconds: number;
    /** Connected at the end of the wait (all of them, unless the wait ran out). */
    readonly connected: number;
    readonly concurrency: number;
    readonly welcomes: number;
    readonly reconnects: number;
    readonly failedDials: number;
    readonly refusals: number;
  };
  /** ms from the first dial to the last welcome (the terminator clock starts at the first dial). */
  readonly lastConnectMs: number;
  readonly terminators: readonly TerminatorTimeline[];
  readonly idle: readonly ControllerIdle[];
  readonly metricsIntervalSeconds: number;
  readonly heartbeatIntervalSeconds: number;
  /** Whether the routers' hello said `routersChanged` (batched arrivals, only routers they may link with); absent: true. */
  readonly routersChanged?: boolean;
  readonly routerList: readonly ListLatency[];
  /** Bytes the controllers sent the simulated routers, by message type, over the whole run. */
  readonly bytesByType: Readonly<Record<string, number>>;
  /** CPU seconds of the simulating process from its first dial to the end of the connected idle window. */
  readonly simulatorCpuSeconds: number;
}

/**
 * When the count first reached each of `steps` equal parts of `total` (linear between polls), ms since the dial
 * began; undefined for a part never reached.
 */
export function crossings(samples: readonly CountSample[], total: number, steps: number): Array<number | undefined> {
  const result: Array<number | undefined> = [];
  for (let k = 1; k <= steps; k++) {
    const target = (total * k) / steps;
    let found: number | undefined;
    for (let i = 0; i < samples.length; i++) {
      const sample = samples[i]!;
      if (sample.count < target) continue;
      const before = samples[i - 1];
      found = before && sample.count > before.count ? before.atMs + ((target - before.count) / (sample.count - before.count)) * (sample.atMs - before.atMs) : sample.atMs;
      break;
    }
    result.push(found);
  }
  return result;
}

/** How long each part took: from the previous crossing (the dial's start for the first). */
export function partDurations(crossed: ReadonlyArray<number | undefined>): Array<number | undefined> {
  return crossed.map((at, k) => {
    const from = k === 0 ? 0 : crossed[k - 1];
    return at === undefined || from === undefined ? undefined : at - from;
  });
}

/** The last part's duration over the first's (undefined unless both were reached). */
export function lastToFirst(durations: ReadonlyArray<number | undefined>): number | undefined {
  const first = durations[0];
  const last = durations.at(-1);
  return first === undefined || last === undefined || first <= 0 ? undefined : last / first;
}

/** CPU ms per connected router per minute over the baseline (idle without routers), for one controller or a sum. */
export function cpuMsPerRouterMinute(idle: readonly ControllerIdle[], routers: number): number | undefined {
  let extra = 0;
  for (const controller of idle) {
    const { baseline, connected } = controller;
    if (baseline.cpuSeconds === undefined || connected.cpuSeconds === undefined) return undefined;
    extra += connected.cpuSeconds / connected.seconds - baseline.cpuSeconds / baseline.seconds;
  }
  return routers === 0 ? undefined : (extra * 60 * 1000) / routers;
}

const fixed = (value: number, digits: number) => value.toFixed(digits);
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');
const seconds = (ms: number | undefined) => (ms === undefined ? 'not reached' : `${fixed(ms / 1000, 1)} s`);
const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${fixed(bytes / (1024 * 1024), 0)} MiB`);
const cpuShare = (figures: IdleFigures) => (figures.cpuSeconds === undefined ? 'n/a' : `${fixed((100 * figures.cpuSeconds) / figures.seconds, 1)}%`);
const cpuPerMinute = (figures: IdleFigures) => (figures.cpuSeconds === undefined ? 'n/a' : fixed((figures.cpuSeconds / figures.seconds) * 60 * 1000, 0));

function terminatorLines(run: RouterSimRun): string[] {
  const total = run.routers * run.terminatorsPerRouter;
  const lines: string[] = [];
  for (const timeline of run.terminators) {
    const crossed = crossings(timeline.samples, total, 10);
    const durations = partDurations(crossed);
    const reached = crossed.at(-1);
    const ratio = lastToFirst(durations);
    const afterConnect = reached === undefined ? undefined : Math.max(0, reached - run.lastConnectMs);
    const last = timeline.samples.at(-1);
    lines.push(
      `Terminators listed by ${timeline.controller} (${timeline.role}): all ${thousands(total)} at ${seconds(reached)} after the first dial, **${seconds(afterConnect)} after the last router connected**` +
        `${reached === undefined ? ` (last poll: ${thousands(last?.count ?? 0)} at ${seconds(last?.atMs)})` : ''}; each tenth (${thousands(total / 10)}): ${durations.map((ms) => (ms === undefined ? '–' : fixed(ms / 1000, 1))).join(', ')} s; last/first **${ratio === undefined ? 'n/a' : fixed(ratio, 2)}**.`,
    );
  }
  return lines;
}

/** The three controllers' CPU over the arrival: seconds, and ms per router. */
function arrivalCpu(run: RouterSimRun): string {
  const seconds = run.idle.map((controller) => controller.arrival?.cpuSeconds);
  if (seconds.some((value) => value === undefined) || seconds.length === 0) return 'n/a';
  const total = seconds.reduce((sum: number, value) => sum + value!, 0);
  return `${fixed(total, 1)} s (${run.idle.map((controller) => `${controller.controller} ${fixed(controller.arrival!.cpuSeconds!, 1)}`).join(', ')}) over ${fixed(run.idle[0]!.arrival!.seconds, 0)} s: **${fixed((total * 1000) / run.routers, 1)} ms per router**`;
}

export function routerSimSummary(run: RouterSimRun): string {
  const total = run.routers * run.terminatorsPerRouter;
  const perRouter = cpuMsPerRouterMinute(run.idle, run.routers);
  const lines = [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ${run.machine.os}, Node ${run.machine.node}; load average ${fixed(run.machine.loadAverage, 2)} at start, ${fixed(run.machine.loadAverageAtEnd, 2)} at the end.`,
    `A 3-controller cluster on loopback (TLS, raft defaults), loaded through the leader's management API with ${thousands(run.model.services)} services (one shared host.v1 config; ${run.model.groups} hosting groups of ${run.terminatorsPerRouter}), ${thousands(run.model.servicePolicies)} service policies (${run.model.groups} Bind, the rest Dial), ${thousands(run.model.edgeRouterPolicies)} edge router policies and ${thousands(run.model.identities)} identities in ${fixed(run.model.seconds, 0)} s.`,
    `Routers: ${thousands(run.routers)} simulated edge routers from one process (bench/router-simulator.ts), each tunneler-enabled, hosting the ${run.terminatorsPerRouter} services of its group: ${thousands(total)} terminators. Heartbeats every ${run.heartbeatIntervalSeconds} s each way, \`router.metrics\` every ${run.metricsIntervalSeconds} s, 3 links reported per router. ${run.routersChanged === false ? 'Hello as older routers say it: told of every router, one `ctrl.routerConnected` each.' : 'Hello with `routersChanged` and one link dialer (group `default`), no link listener: told only of routers with a listener in that group (none here), in batched `ctrl.routersChanged`.'}`,
    '',
    '| Step | Figure |',
    '|---|---|',
    `| Enrollment (\`POST /edge-routers\`, its JWT, \`/enroll/erott\` with two CSRs; ${run.enrollment.concurrency} at once) | ${thousands(run.routers)} in ${fixed(run.enrollment.seconds, 1)} s: **${fixed(run.routers / run.enrollment.seconds, 1)} routers/s** |`,
    `| Enrollment, wall time per router by step (summed over the ${run.enrollment.concurrency} in flight) | ${Object.entries(run.enrollment.stepMs).map(([step, ms]) => `${step} ${fixed(ms / Math.max(1, run.routers), 0)} ms`).join(', ')} |`,
    `| Connect all (first dial to last welcome; ${run.connect.concurrency} dials at once) | ${run.connect.connected < run.routers ? `**only ${thousands(run.connect.connected)} of ${thousands(run.routers)} connected** by the end of the wait; last welcome at ` : ''}**${fixed(run.connect.seconds, 1)} s** (${fixed(run.connect.connected / Math.max(1e-9, run.connect.seconds), 0)} routers/s); ${run.connect.welcomes} welcomes, ${run.connect.reconnects} reconnects, ${run.connect.failedDials} failed dials, ${run.connect.refusals} refusals |`,
    `| Controller CPU for connected routers (heartbeats + metrics, over the idle baseline, all three) | ${perRouter === undefined ? 'n/a' : `**${fixed(perRouter, 1)} ms per router per minute**`} |`,
    `| Controllers' CPU while the routers arrived (first dial to every terminator listed, all three, polls included) | ${arrivalCpu(run)} |`,
    `| Simulator CPU (first dial to the end of the connected window) | ${fixed(run.simulatorCpuSeconds, 1)} s |`,
    '',
    ...terminatorLines(run),
    '',
    '| Controller | Role | Idle without routers: CPU | CPU ms/min | RSS | With all routers: CPU | CPU ms/min | RSS | CPU ratio |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...run.idle.map((controller) => {
      const { baseline, connected } = controller;
      const ratio = baseline.cpuSeconds && connected.cpuSeconds !== undefined ? fixed(connected.cpuSeconds / connected.seconds / (baseline.cpuSeconds / baseline.seconds), 2) : 'n/a';
      return `| ${controller.controller} | ${controller.role} | ${cpuShare(baseline)} | ${cpuPerMinute(baseline)} | ${mib(baseline.rssBytes)} | ${cpuShare(connected)} | ${cpuPerMinute(connected)} | ${mib(connected.rssBytes)} | ${ratio} |`;
    }),
    '',
    `Idle windows: ${fixed(run.idle[0]?.baseline.seconds ?? 0, 0)} s each; the baseline with every router enrolled and none connected, the other with all connected and their terminators listed. CPU: user + system of the controller process over the window.`,
    '',
    '| Router list on | Role | Filter | Requests | Failed | p50 (ms) | p99 (ms) | max (ms) |',
    '|---|---|---|---:|---:|---:|---:|---:|',
    ...run.routerList.map((list) => {
      const sorted = [...list.samplesMs].sort((a, b) => a - b);
      return `| ${list.controller} | ${list.role} | \`${list.filter}\` | ${list.samplesMs.length} | ${list.failures} | ${fixed(percentile(sorted, 0.5), 1)} | ${fixed(percentile(sorted, 0.99), 1)} | ${fixed(sorted.at(-1) ?? 0, 1)} |`;
    }),
    '',
    `Bytes the controllers sent the routers, by message (per router): ${Object.entries(run.bytesByType)
      .sort((a, b) => b[1] - a[1])
      .map(([type, bytes]) => `${type} ${mib(bytes)} (${thousands(bytes / Math.max(1, run.routers))} B)`)
      .join(', ')}.`,
    'The status page\'s data endpoint: not measured here (the cluster harness runs no status page; bench/dashboard-bench.ts measures it).',
  ];
  return lines.join('\n');
}

export const routerSimSectionHeading = '## Router simulator: 5,000 routers and 150,000 terminators on a 3-controller cluster';

export function renderRouterSimSection(previous: string | undefined, run: RouterSimRun): string {
  return replaceSection(previous ?? '# Benchmark results\n', 'router-sim', routerSimSectionHeading, routerSimSummary(run));
}
