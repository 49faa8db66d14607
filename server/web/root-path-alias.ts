// Path aliases served by the outer web layer: the Edge Client API answers at the host's root as well as under
// `/edge/client/v1`, as OpenZiti's controller does (its C SDK posts `/authenticate?method=cert` at the root of
// `ztAPI`), and the legacy `/edge/v1` prefix names the client API. The alias only renames the path, so the one set
// of client routes serves both and no route exists twice.
import { apiPaths } from './routes/version-routes.ts';

const clientPrefix = apiPaths['edge-client'];
const legacyClientPrefix = '/edge/v1';

/**
 * Paths that keep their own meaning at the root and are never renamed: the Edge APIs' own prefixes (`/edge/...`),
 * the fabric API, the OpenID provider (`/oidc/...`), `/.well-known/...` (the EST CA bundle is served at the root directly), health checks, metrics,
 * and `/` itself (the version document, served at the root directly).
 */
function keepsItsMeaning(path: string): boolean {
  return (
    path === '/' ||
    underPrefix(path, '/edge') ||
    underPrefix(path, '/fabric') ||
    underPrefix(path, '/.well-known') ||
    underPrefix(path, '/oidc') ||
    underPrefix(path, apiPaths['health-checks']) ||
    underPrefix(path, apiPaths.metrics)
  );
}

function underPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * The path to serve instead of `path`, or undefined to keep it. `clientAtRoot`: this web entry binds the Edge
 * Client API, so a root path that means nothing else is a client API path.
 */
export function rootPathAlias(path: string, clientAtRoot: boolean): string | undefined {
  if (underPrefix(path, legacyClientPrefix)) return clientPrefix + path.slice(legacyClientPrefix.length);
  if (!clientAtRoot || keepsItsMeaning(path)) return undefined;
  return clientPrefix + path;
}
