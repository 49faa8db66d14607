// The router's health checks (controller ping, link health) and the `health-checks` API serving them on every web
// entry that binds it, with the entry's own server certificate or the router's.
import type { StopStack } from '../../common/lifecycle/stop-stack.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { RouterConfig } from '../config/router-config.ts';
import { HealthServer, type HealthListener } from '../health/health-server.ts';
import { HealthCheckRunner, routerCheckDefinitions } from '../health/router-health-checks.ts';
import type { LinkManagerApi } from '../links/link-manager-api.ts';
import type { ControlChannel } from './control-channel.ts';
import { readIdentityValue, type IdentityMaterial } from './identity-material.ts';

/** Starts the checks and their listeners, each pushed on the stack as it starts. */
export async function startRouterHealth(
  config: RouterConfig,
  identity: IdentityMaterial,
  sources: { readonly channel: ControlChannel; readonly linkManager: LinkManagerApi },
  clock: Clock,
  logger: Logger,
  stack: StopStack,
): Promise<HealthCheckRunner> {
  const { channel, linkManager } = sources;
  const health = new HealthCheckRunner(
    routerCheckDefinitions(config.healthChecks, {
      ctrlConnected: () => channel.connected,
      pingController: async (timeoutMs) => void (await channel.request({ op: 'ping' }, timeoutMs)),
      links: () => linkManager.links(),
    }),
    clock,
  );
  health.start();
  stack.push('health checks', async () => health.stop());
  const listeners = await healthListeners(config, identity);
  if (listeners.length > 0) {
    const server = new HealthServer(listeners, (short) => health.report(short), logger.child('health'));
    stack.push('health listeners', () => server.stop());
    await server.start();
  }
  return health;
}

async function healthListeners(config: RouterConfig, identity: IdentityMaterial): Promise<HealthListener[]> {
  const listeners: HealthListener[] = [];
  for (const [index, web] of (config.web ?? []).entries()) {
    if (!web.apis.some((api) => api.binding === 'health-checks')) continue;
    let certPem = identity.serverCertPem;
    let keyPem = identity.serverKeyPem;
    if (web.identity) {
      certPem = await readIdentityValue(web.identity.server_cert, `web[${index}].identity.server_cert`);
      keyPem = await readIdentityValue(web.identity.server_key, `web[${index}].identity.server_key`);
    }
    for (const bindPoint of web.bindPoints) listeners.push({ name: web.name, host: bindPoint.interface.host, port: bindPoint.interface.port, certPem, keyPem });
  }
  return listeners;
}
