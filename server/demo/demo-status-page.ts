// The demo's status page: its config under <data>/dashboard/ (the controllers, the routers, the alerts daemon, and
// the demo's admin so that the page can read the member list), and the command that serves it. The port is kept
// across starts, read back from the config an earlier start wrote.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { dashboardConfigExample } from '../../dashboard/config/dashboard-config-example.ts';
import { edgewardCommand } from './child-process.ts';
import type { StackCommand } from './observability-stack.ts';

export const preferredStatusPagePort = 9110;

export interface StatusPagePlan {
  readonly url: string;
  readonly config: string;
  readonly command: StackCommand;
}

export interface StatusPageSources {
  readonly controllers: readonly { readonly id: string; readonly origin: string; readonly eventsFile: string }[];
  readonly routers: readonly { readonly id: string; readonly name: string; readonly healthChecks: string }[];
  readonly caBundle: string;
  readonly alertsDaemonUrl: string;
  readonly admin: { readonly username: string; readonly passwordFile: string };
}

export function statusPagePaths(root: string): { readonly dir: string; readonly config: string; readonly log: string } {
  const dir = join(root, 'dashboard');
  return { dir, config: join(dir, 'dashboard.yml'), log: join(dir, 'dashboard.log') };
}

/** The port an earlier start's config listens on, if there is one. */
export function storedStatusPagePort(root: string): number | undefined {
  const { config } = statusPagePaths(root);
  if (!existsSync(config)) return undefined;
  try {
    const listen = (parseYaml(readFileSync(config, 'utf8')) as { listen?: unknown } | null)?.listen;
    const match = typeof listen === 'string' ? /:(\d+)$/.exec(listen) : null;
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the config (routers are known once enrolled, so this runs after they are) and describes the process. */
export function layOutStatusPage(root: string, port: number, sources: StatusPageSources): StatusPagePlan {
  const paths = statusPagePaths(root);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const listen = `127.0.0.1:${port}`;
  writeFileSync(
    paths.config,
    dashboardConfigExample({
      listen,
      controllers: sources.controllers.map((controller) => ({ id: controller.id, url: controller.origin, eventsFile: controller.eventsFile })),
      routers: sources.routers.map((router) => ({ id: router.id, name: router.name, healthUrl: router.healthChecks })),
      caBundle: sources.caBundle,
      alertsDaemonUrl: sources.alertsDaemonUrl,
      credentials: sources.admin,
    }),
    { mode: 0o600 },
  );
  const url = `http://${listen}`;
  return {
    url,
    config: paths.config,
    command: { name: 'status page', ...edgewardCommand(['dashboard', 'run', paths.config]), logFile: paths.log, readyUrl: `${url}/api/health` },
  };
}
