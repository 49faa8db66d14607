// Starts a real controller process over HTTPS for cross-process tests: its own PKI, config, data dir and ports,
// and a bootstrap admin created through the agent socket, as an operator would.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { controllerConfigExample } from '../../server/config/controller-config.ts';
import { callAgent } from '../../server/agent/agent-client.ts';
import { controllerPaths, initPki, issueControllerCertificate, pkiPaths } from '../../common/pki/pki-directory.ts';
import { waitForHealthy } from '../../server/demo/wait-for-health.ts';
import { controllerNodeFlags } from '../../server/cli/node-flags.ts';
import { freePort } from './free-port.ts';
import { HttpsClient } from './https-client.ts';

const cliEntry = fileURLToPath(new URL('../../server/cli/main.ts', import.meta.url));
const tsxLoader = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

export const adminCredentials = { username: 'admin', password: 'admin-password-for-tests' } as const;

export interface ControllerFixtureOptions {
  /** Extra YAML appended under `edge.api` etc. is awkward; instead, transform the generated config text. */
  readonly editConfig?: (yaml: string) => string;
  readonly env?: NodeJS.ProcessEnv;
  readonly initAdmin?: boolean;
  /** A PKI folder shared by a cluster's controllers (created by the caller with initPki); own one when unset. */
  readonly pkiDir?: string;
  readonly id?: string;
  /** The names on the controller's certificate; default localhost and 127.0.0.1. */
  readonly certificateNames?: { readonly dnsNames: string[]; readonly ipAddresses: string[] };
  /** Node options for the process, before the entry point (an `--import` preload that observes it). */
  readonly nodeArgs?: readonly string[];
}

export class ControllerFixture {
  child: ChildProcess | undefined;
  readonly http: HttpsClient;
  output = '';

  private constructor(
    readonly id: string,
    readonly ctrlAddress: string,
    readonly root: string,
    readonly configFile: string,
    readonly caPem: string,
    readonly origin: string,
    readonly agentSocket: string,
    readonly dataDir: string,
    readonly eventsFile: string,
    readonly logFile: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly nodeArgs: readonly string[],
  ) {
    this.http = new HttpsClient(caPem);
  }

  get clientApi(): string {
    return `${this.origin}/edge/client/v1`;
  }

  get managementApi(): string {
    return `${this.origin}/edge/management/v1`;
  }

  static async create(options: ControllerFixtureOptions = {}): Promise<ControllerFixture> {
    const root = mkdtempSync(join(tmpdir(), 'edgeward-ctrl-'));
    const id = options.id ?? 'ctrl-test';
    const pkiDir = options.pkiDir ?? join(root, 'pki');
    if (!options.pkiDir) await initPki(pkiDir, { trustDomain: 'edgeward.test' });
    await issueControllerCertificate(pkiDir, { id, ...(options.certificateNames ?? { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }) });
    const certificate = controllerPaths(pkiDir, id);
    const webPort = await freePort();
    const ctrlPort = await freePort();
    const dataDir = join(root, 'data');
    const eventsFile = join(root, 'events.jsonl');
    const logFile = join(root, 'controller.log');
    const agentSocket = join(root, 'agent.sock');
    let yaml = controllerConfigExample({
      id,
      dataDir,
      identity: { cert: certificate.chain, key: certificate.key, ca: pkiPaths(pkiDir).bundle },
      signingCert: { cert: pkiPaths(pkiDir).intermediateCert, key: pkiPaths(pkiDir).intermediateKey },
      // Beside the PKI, so the controllers of one cluster share it.
      totpSecretKeyFile: join(pkiDir, 'mfa.key'),
      webAddress: `127.0.0.1:${webPort}`,
      ctrlAddress: `tls:127.0.0.1:${ctrlPort}`,
      eventsFile,
      logFile,
      agentSocket,
    });
    if (options.editConfig) yaml = options.editConfig(yaml);
    const configFile = join(root, 'ctrl.yml');
    writeFileSync(configFile, yaml);
    const fixture = new ControllerFixture(id, `tls:127.0.0.1:${ctrlPort}`, root, configFile, readFileSync(pkiPaths(pkiDir).bundle, 'utf8'), `https://127.0.0.1:${webPort}`, agentSocket, dataDir, eventsFile, logFile, {
      ...process.env,
      EDGEWARD_AGENT_REGISTRY: join(root, 'agents'),
      ...(options.env ?? {}),
    }, options.nodeArgs ?? []);
    await fixture.start();
    if (options.initAdmin !== false) {
      const init = await callAgent(agentSocket, 'controller.init', { ...adminCredentials, name: 'Default Admin' });
      if (!init.ok) throw new Error(`admin init failed: ${init.error}`);
    }
    return fixture;
  }

  /** The command start() runs, with `nodeArgs` (a fault-injecting `--import`) added: for a test that runs the
   * process itself, under a supervisor. */
  command(nodeArgs: readonly string[] = []): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
    return { file: process.execPath, args: ['--import', tsxLoader, ...nodeArgs, ...controllerNodeFlags(), cliEntry, 'controller', 'run', this.configFile], env: this.env };
  }

  /** Starts (or restarts) the controller process and waits until it is healthy (up to `healthyWithinMs`: a controller
   * restored from a large model reads every row first); `env` is added to its environment for this start only
   * (EDGEWARD_VERSION, to restart it as another version). */
  async start(env: NodeJS.ProcessEnv = {}, healthyWithinMs = 60_000): Promise<void> {
    this.output = '';
    const command = this.command(this.nodeArgs);
    const child = spawn(command.file, command.args, { env: { ...command.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child = child;
    try {
      await waitForHealthy(`${this.origin}/health-checks`, this.caPem, healthyWithinMs, () => child.exitCode === null && child.signalCode === null);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- controller output ---\n${this.output}`);
    }
  }

  /** Stops the process with a signal and waits for it to exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    // A controller that does not stop within 15 s is killed, so a test can never hang on its clean-up.
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  }

  async adminToken(api: 'client' | 'management' = 'management'): Promise<string> {
    return this.login(adminCredentials.username, adminCredentials.password, api);
  }

  async login(username: string, password: string, api: 'client' | 'management' = 'client'): Promise<string> {
    const base = api === 'client' ? this.clientApi : this.managementApi;
    const response = await this.http.post(`${base}/authenticate?method=password`, { body: { username, password } });
    if (response.status !== 200) throw new Error(`login failed for ${username}: ${response.status} ${response.text}`);
    return response.json.data.token as string;
  }

  readLog(): string {
    try {
      return readFileSync(this.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  async dispose(): Promise<void> {
    await this.stop('SIGTERM');
    this.http.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}
