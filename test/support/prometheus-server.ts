// A real Prometheus (Debian's /usr/bin/prometheus) for cross-process tests: a config file the test writes, its
// storage in a temporary folder, a free port on 127.0.0.1, and the HTTP API's query endpoints. `./edgeward test`
// installs the package; a test that needs it fails when it is missing, it never skips.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

export const prometheusBinary = '/usr/bin/prometheus';

/** One series of a query's answer: its labels, and its value(s) as Prometheus gives them (strings). */
export interface PromSeries {
  readonly metric: Readonly<Record<string, string>>;
  readonly value?: readonly [number, string];
  readonly values?: readonly (readonly [number, string])[];
}

/** A query Prometheus answered: `ok` false with its error when it did not parse or could not run. */
export type PromAnswer = { readonly ok: true; readonly series: readonly PromSeries[] } | { readonly ok: false; readonly error: string };

/** The HTTP API of a Prometheus that runs already (the demo's, or one a test started). */
export class PrometheusClient {
  constructor(readonly url: string) {}

  /** An instant query at the current time. */
  query(expr: string): Promise<PromAnswer> {
    return this.api('/api/v1/query', { query: expr });
  }

  /** A range query as Grafana runs a panel's: the last `seconds`, one point every `stepSeconds`. */
  queryRange(expr: string, seconds: number, stepSeconds: number): Promise<PromAnswer> {
    const end = Date.now() / 1000;
    return this.api('/api/v1/query_range', { query: expr, start: String(end - seconds), end: String(end), step: String(stepSeconds) });
  }

  /** The values of a label on the series a selector matches: what Grafana's label_values() asks. */
  async labelValues(label: string, selector: string): Promise<string[]> {
    const response = await fetch(`${this.url}/api/v1/label/${encodeURIComponent(label)}/values?${new URLSearchParams({ 'match[]': selector })}`);
    const body = (await response.json()) as { status: string; data?: string[]; error?: string };
    if (body.status !== 'success') throw new Error(`label_values(${selector}, ${label}): ${body.error}`);
    return body.data ?? [];
  }

  protected async api(path: string, params: Record<string, string>): Promise<PromAnswer> {
    // POST, as Grafana's provisioned datasource does: long expressions do not fit every URL limit.
    const response = await fetch(`${this.url}${path}`, { method: 'POST', body: new URLSearchParams(params) });
    const body = (await response.json()) as { status: string; data?: { result: PromSeries[] }; error?: string; errorType?: string };
    if (body.status !== 'success') return { ok: false, error: `${body.errorType ?? response.status}: ${body.error ?? 'no error text'}` };
    return { ok: true, series: body.data!.result };
  }
}

export class PrometheusServer extends PrometheusClient {
  private constructor(
    url: string,
    private readonly child: ChildProcess,
    private readonly storage: string,
    private readonly log: () => string,
  ) {
    super(url);
  }

  /** Starts Prometheus with `configFile` and waits until it is ready (30 s at most). */
  static async start(configFile: string): Promise<PrometheusServer> {
    try {
      accessSync(prometheusBinary, constants.X_OK);
    } catch {
      assert.fail(`${prometheusBinary} is not installed: install the Debian package prometheus (./edgeward test does)`);
    }
    const storage = mkdtempSync(join(tmpdir(), 'edgeward-prometheus-'));
    const port = await freePort();
    let output = '';
    const child = spawn(
      prometheusBinary,
      [`--config.file=${configFile}`, `--storage.tsdb.path=${storage}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const server = new PrometheusServer(`http://127.0.0.1:${port}`, child, storage, () => output);
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`Prometheus exited with ${child.exitCode}:\n${output}`);
      if (await fetch(`${server.url}/-/ready`).then((response) => response.ok, () => false)) return server;
      if (Date.now() > deadline) {
        await server.stop();
        throw new Error(`Prometheus was not ready within 30 s:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  output(): string {
    return this.log();
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.storage, { recursive: true, force: true });
  }
}

/** A scrape job for a test's controllers (HTTPS with the test CA, labelled with `cluster` and each controller's id). */
export function controllerScrapeJob(nodes: readonly { readonly id: string; readonly origin: string }[], caFile: string, cluster: string) {
  return {
    job_name: 'edgeward-controller',
    scheme: 'https',
    tls_config: { ca_file: caFile },
    static_configs: nodes.map((node) => ({ targets: [new URL(node.origin).host], labels: { cluster, controller: node.id } })),
  };
}

/** The global settings of a test's Prometheus: scrape and evaluate every second. */
export const testPrometheusGlobal = { scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '1s' } as const;
