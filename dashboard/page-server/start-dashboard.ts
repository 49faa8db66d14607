// Starts the whole status page from a validated config: reads the files it names (CA bundle, TLS key pair, the
// password file), builds the page if its build is missing or stale, starts Next, the gatherer and the server. What
// `./edgeward dashboard run` runs, and what another program (the demo) can call to run the page in its own process.

import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { DashboardConfig } from '../config/dashboard-config.ts';
import { AdminAccess } from './admin-access.ts';
import { ClusterGatherer } from './cluster-gatherer.ts';
import { logoutAtController } from './controller-login.ts';
import { startDashboardServer } from './dashboard-server.ts';
import { HttpClient } from './http-client.ts';
import { ensureBuilt, pageDir, startNext } from './next-app.ts';
import { PageSessions } from './page-sessions.ts';
import { registerSnapshotSource } from './snapshot-registry.ts';

export interface DashboardDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** Told about slow steps (the page's build). */
  readonly progress?: (text: string) => void;
}

export interface RunningDashboard {
  /** Where the page is: http(s)://host:port. */
  readonly url: string;
  readonly gatherer: ClusterGatherer;
  /** Whether this start built the page, and how long making sure of the build took (ms). */
  readonly build: { readonly built: boolean; readonly ms: number };
  stop(): Promise<void>;
}

async function readNamed(what: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${what} ${path}: ${(error as Error).message}`);
  }
}

export async function startDashboard(config: DashboardConfig, deps: DashboardDeps): Promise<RunningDashboard> {
  const { clock, logger } = deps;
  const caPem = config.caBundle === undefined ? undefined : await readNamed('caBundle', config.caBundle);
  const tls = config.tls === undefined ? undefined : { cert: await readNamed('tls.cert', config.tls.cert), key: await readNamed('tls.key', config.tls.key) };
  const password = config.credentials === undefined ? undefined : (await readNamed('credentials.passwordFile', config.credentials.passwordFile)).replace(/\r?\n$/, '');
  if (password === '') throw new Error(`credentials.passwordFile ${config.credentials!.passwordFile} is empty`);

  // Served at /docs/runbooks.md, where the alerts' relative runbook links lead (absent in an install without docs).
  const runbooks = await readFile(join(pageDir, '..', 'docs', 'runbooks.md'), 'utf8').catch(() => undefined);
  const build = await ensureBuilt(logger, deps.progress);
  const next = await startNext();
  const http = new HttpClient(caPem);
  const logouts = new Set<Promise<void>>();
  const sessions = new PageSessions({
    ttlMs: config.session.ttl,
    idleTimeoutMs: config.session.idleTimeout,
    maxSessions: config.session.maxSessions,
    now: () => clock.now(),
    randomBytes: (size) => randomBytes(size),
    onEnd: (session, reason) => {
      logger.info('status page session ended', { username: session.username, reason });
      if (!session.controller) return;
      const done = logoutAtController(http, session.controller, config.timeouts.request).finally(() => logouts.delete(done));
      logouts.add(done);
    },
  });
  const admin = new AdminAccess(http, {
    ...(config.credentials && password !== undefined ? { credentials: { username: config.credentials.username, password } } : {}),
    sessions,
    loginTimeoutMs: config.timeouts.login,
    now: () => clock.now(),
    logger,
  });
  const gatherer = new ClusterGatherer(config, { clock, logger, http, admin });
  const sweep = setInterval(() => sessions.sweep(), 30_000);
  sweep.unref();
  let server;
  try {
    await gatherer.start();
    registerSnapshotSource({ latest: () => gatherer.latest()?.snapshot, loginRequired: config.auth === 'required' });
    server = await startDashboardServer({ config, gatherer, sessions, http, next, clock, logger, ...(tls ? { tls } : {}), ...(runbooks === undefined ? {} : { runbooks }) });
  } catch (error) {
    clearInterval(sweep);
    await gatherer.stop();
    await next.close();
    http.close();
    throw error;
  }
  const running = server;
  logger.info('status page started', { url: running.url, auth: config.auth, controllers: config.controllers.map((controller) => controller.id), built: build.built });

  let stopping: Promise<void> | undefined;
  return {
    url: running.url,
    gatherer,
    build,
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(sweep);
        await running.close();
        await gatherer.stop();
        sessions.endAll();
        await admin.close(config.timeouts.request);
        await Promise.all([...logouts]);
        registerSnapshotSource(undefined);
        await next.close();
        http.close();
        logger.info('status page stopped');
      })()),
  };
}
