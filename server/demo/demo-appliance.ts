// The local appliance on loopback: PKI, controller config, the controller process, the bootstrap admin, and
// demo.json describing it all. Re-running with the same data folder reuses what is there.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { controllerConfigExample } from '../config/controller-config.ts';
import { callAgent } from '../agent/agent-client.ts';
import { initPki, issueControllerCertificate, controllerPaths, pkiPaths } from '../pki/pki-directory.ts';
import { freeLoopbackPort } from './loopback-port.ts';
import { spawnEdgeward, waitForExit } from './child-process.ts';
import { waitForHealthy } from './wait-for-health.ts';

export interface DemoController {
  id: string;
  pid: number;
  config: string;
  clientApi: string;
  managementApi: string;
  healthChecks: string;
  metrics: string;
  agentSocket: string;
  dataDir: string;
  logFile: string;
  eventsFile: string;
}

export interface DemoState {
  controllers: DemoController[];
  caBundle: string;
  admin: { username: string; passwordFile: string };
}

export interface RunningDemo {
  readonly state: DemoState;
  readonly stateFile: string;
  stop(): Promise<void>;
  /** Resolves when any child exits on its own (a crash): the demo then stops everything. */
  readonly unexpectedExit: Promise<string>;
}

const adminUsername = 'admin';

export async function startDemo(dataFolder: string, log: (line: string) => void): Promise<RunningDemo> {
  const root = resolve(dataFolder);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const pkiDir = join(root, 'pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.demo' });
  const pki = pkiPaths(pkiDir);

  const id = 'ctrl1';
  const controllerDir = join(root, id);
  mkdirSync(controllerDir, { recursive: true, mode: 0o700 });
  const certificate = controllerPaths(pkiDir, id);
  if (!existsSync(certificate.cert)) await issueControllerCertificate(pkiDir, { id, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });

  const webPort = await freeLoopbackPort(1280);
  const ctrlPort = await freeLoopbackPort(6262);
  const configFile = join(controllerDir, 'ctrl.yml');
  const dataDir = join(controllerDir, 'data');
  const logFile = join(controllerDir, 'controller.log');
  const eventsFile = join(controllerDir, 'events.jsonl');
  const agentSocket = join(dataDir, 'agent.sock');
  writeFileSync(
    configFile,
    controllerConfigExample({
      id,
      dataDir,
      identity: { cert: certificate.chain, key: certificate.key, ca: pki.bundle },
      webAddress: `127.0.0.1:${webPort}`,
      ctrlAddress: `tls:127.0.0.1:${ctrlPort}`,
      eventsFile,
      logFile,
      agentSocket,
    }),
    { mode: 0o600 },
  );

  const child: ChildProcess = spawnEdgeward(['controller', 'run', configFile], { outputFile: logFile });
  const unexpectedExit = new Promise<string>((resolveExit) => child.once('exit', (code, signal) => resolveExit(`controller ${id} exited (${signal ?? `code ${code}`}); see ${logFile}`)));
  const caPem = readFileSync(pki.bundle, 'utf8');
  const origin = `https://127.0.0.1:${webPort}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      if (!(await waitForExit(child, 15_000))) child.kill('SIGKILL');
    }
  };
  try {
    await waitForHealthy(`${origin}/health-checks`, caPem, 60_000, () => child.exitCode === null && child.signalCode === null);

    const passwordFile = join(root, 'admin-password');
    if (!existsSync(passwordFile)) writeFileSync(passwordFile, `${randomBytes(18).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    const status = await callAgent(agentSocket, 'status');
    if (status.ok && !(status.result as { initialized: boolean }).initialized) {
      const password = readFileSync(passwordFile, 'utf8').trim();
      const init = await callAgent(agentSocket, 'controller.init', { username: adminUsername, password, name: 'Default Admin' });
      if (!init.ok) throw new Error(`could not create the admin: ${init.error}`);
      log(`created the admin identity '${adminUsername}'`);
    }

    const state: DemoState = {
      controllers: [
        {
          id,
          pid: child.pid!,
          config: configFile,
          clientApi: `${origin}/edge/client/v1`,
          managementApi: `${origin}/edge/management/v1`,
          healthChecks: `${origin}/health-checks`,
          metrics: `${origin}/metrics`,
          agentSocket,
          dataDir,
          logFile,
          eventsFile,
        },
      ],
      caBundle: pki.bundle,
      admin: { username: adminUsername, passwordFile },
    };
    const stateFile = join(root, 'demo.json');
    writeFileSync(`${stateFile}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(`${stateFile}.tmp`, stateFile);
    return { state, stateFile, stop, unexpectedExit };
  } catch (error) {
    await stop();
    throw error;
  }
}
