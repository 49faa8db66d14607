// Finds the link manager (router/links/link-manager.ts, `createLinkManager`) and falls back to a manager that holds
// no links when it is not there: the router runs either way, fabric-less. The import is by URL so the router builds
// before the links module exists.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../common/log/logger.ts';
import type { LinkInfo, LinkManagerApi, LinkManagerFactory, LinkManagerOptions, RouterInfo } from '../links/link-manager-api.ts';

const linkManagerModule = new URL('../links/link-manager.ts', import.meta.url);

export async function loadLinkManagerFactory(logger: Logger): Promise<LinkManagerFactory> {
  if (!existsSync(fileURLToPath(linkManagerModule))) {
    logger.warn('router/links/link-manager.ts is not there: the router runs without links');
    return createNoopLinkManager;
  }
  const module = (await import(linkManagerModule.href)) as { createLinkManager?: unknown };
  if (typeof module.createLinkManager !== 'function') {
    logger.warn('router/links/link-manager.ts exports no createLinkManager: the router runs without links');
    return createNoopLinkManager;
  }
  return module.createLinkManager as LinkManagerFactory;
}

/** A link manager that never links: what the router uses until router/links provides one. */
export function createNoopLinkManager(options: LinkManagerOptions): LinkManagerApi {
  const logger = options.logger;
  const known = new Map<string, RouterInfo>();
  const none: readonly LinkInfo[] = Object.freeze([]);
  return {
    start: async () => undefined,
    stop: async () => undefined,
    onControllerConnected: (connected) => logger.debug('link manager (none): controller connected', { connected }),
    routerConnected: (info) => void known.set(info.id, info),
    routerDisconnected: (routerId) => void known.delete(routerId),
    knownRouters: (routers) => {
      known.clear();
      for (const router of routers) known.set(router.id, router);
    },
    links: () => none,
    onLinksChanged: () => undefined,
  };
}
