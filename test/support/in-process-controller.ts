// A real controller started inside the test process (HTTPS APIs, control port for real router processes, raft of one)
// from the same generated config a ControllerFixture runs, for tests that also need its in-memory parts: the OIDC
// signing key, to issue tokens as its /oidc routes would. Its log lines go to controller.log under its root.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonLogger } from '../../common/log/logger.ts';
import { controllerPaths, initPki, issueControllerCertificate, pkiPaths } from '../../common/pki/pki-directory.ts';
import { systemClock } from '../../common/time/clock.ts';
import { currentVersion } from '../../common/version/version-info.ts';
import { readControllerConfig } from '../../server/config/controller-config-file.ts';
import { controllerConfigExample } from '../../server/config/controller-config.ts';
import { startController, type RunningController } from '../../server/controller/controller.ts';
import { controllerOptionsFromConfig } from '../../server/controller/controller-from-config.ts';
import { adminCredentials } from './controller-fixture.ts';
import { freePort } from './free-port.ts';
import { HttpsClient } from './https-client.ts';

export class InProcessController {
  readonly http: HttpsClient;

  private constructor(
    readonly running: RunningController,
    readonly root: string,
    readonly origin: string,
    readonly ctrlAddress: string,
    readonly caPem: string,
    readonly logFile: string,
  ) {
    this.http = new HttpsClient(caPem);
  }

  get clientApi(): string {
    return `${this.origin}/edge/client/v1`;
  }

  get managementApi(): string {
    return `${this.origin}/edge/management/v1`;
  }

  /** `editConfig` transforms the generated ctrl.yml (e.g. a short `edge.oidc.accessTokenDuration`). */
  static async create(options: { readonly editConfig?: (yaml: string) => string } = {}): Promise<InProcessController> {
    const root = mkdtempSync(join(tmpdir(), 'edgeward-ctrl-inproc-'));
    const id = 'ctrl-inproc';
    const pkiDir = join(root, 'pki');
    await initPki(pkiDir, { trustDomain: 'edgeward.test' });
    await issueControllerCertificate(pkiDir, { id, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const certificate = controllerPaths(pkiDir, id);
    const webPort = await freePort();
    const ctrlPort = await freePort();
    const logFile = join(root, 'controller.log');
    let yaml = controllerConfigExample({
      id,
      dataDir: join(root, 'data'),
      identity: { cert: certificate.chain, key: certificate.key, ca: pkiPaths(pkiDir).bundle },
      signingCert: { cert: pkiPaths(pkiDir).intermediateCert, key: pkiPaths(pkiDir).intermediateKey },
      totpSecretKeyFile: join(pkiDir, 'mfa.key'),
      webAddress: `127.0.0.1:${webPort}`,
      ctrlAddress: `tls:127.0.0.1:${ctrlPort}`,
      eventsFile: join(root, 'events.jsonl'),
      logFile,
      agentSocket: join(root, 'agent.sock'),
    });
    if (options.editConfig) yaml = options.editConfig(yaml);
    const configFile = join(root, 'ctrl.yml');
    writeFileSync(configFile, yaml);
    const { config, problems } = await readControllerConfig(configFile);
    const built = config ? await controllerOptionsFromConfig(config) : undefined;
    const errors = [...problems, ...(built?.problems ?? [])].filter((problem) => problem.severity === 'error');
    if (!built?.options || errors.length > 0) throw new Error(`ctrl.yml refused: ${JSON.stringify(errors)}`);
    const logger = createJsonLogger({ sink: (line) => appendFileSync(logFile, `${line}\n`), component: 'controller', fields: { controllerId: id } });
    const running = await startController(built.options, { logger, clock: systemClock, version: currentVersion() });
    await running.initialize({ ...adminCredentials, name: 'Default Admin' });
    return new InProcessController(running, root, `https://127.0.0.1:${webPort}`, `tls:127.0.0.1:${ctrlPort}`, readFileSync(pkiPaths(pkiDir).bundle, 'utf8'), logFile);
  }

  async adminToken(): Promise<string> {
    const response = await this.http.post(`${this.managementApi}/authenticate?method=password`, { body: adminCredentials });
    if (response.status !== 200) throw new Error(`admin login failed: ${response.status} ${response.text}`);
    return response.json.data.token as string;
  }

  async dispose(): Promise<void> {
    await this.running.close();
    this.http.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}
