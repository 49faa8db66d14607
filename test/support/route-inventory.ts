// Every route the controller's web app serves on the Edge APIs, read from the routers buildWebApp mounts, so a
// test that must cover them all cannot fall behind when a route is added. The app is built with stand-in services:
// registering routes only keeps references to them, nothing is called until a request comes.
import { buildWebApp, type WebAppDeps } from '../../server/web/web-app.ts';
import { routesOf, type RouteEntry } from '../../server/web/api-router.ts';

/** Any property, any call: a stand-in for services the routes only hold on to. */
function standIn(overrides: Record<string, unknown> = {}): never {
  const proxy: object = new Proxy(function standInFunction() {}, {
    get: (_target, key) => (typeof key === 'string' && key in overrides ? overrides[key] : key === 'then' ? undefined : proxy),
    apply: () => proxy,
  });
  return proxy as never;
}

/** The routes of both Edge APIs and the host root (version, the EST CA bundle), as `{method, path}` with `:params`. */
export function edgeApiRoutes(caBundlePem: string): RouteEntry[] {
  const deps: WebAppDeps = {
    services: standIn({ caBundlePem }),
    health: standIn(),
    metrics: standIn(),
    version: { version: 'v0.0.0', revision: '', buildDate: '', runtimeVersion: '' },
    baseUrls: {},
    raftState: () => ({ isRaftEnabled: true, isLeader: true }),
    cluster: { members: () => [], readOnly: () => false },
    logger: standIn(),
    maxBodyBytes: 1024,
  };
  const app = buildWebApp(['edge-client', 'edge-management'], deps);
  // The fabric API's cluster route is mounted beside the management API but is not an Edge API route: it is not in
  // the Edge API specs these tests check against, and test/fabric-cluster-route.test.ts covers it. The same for the
  // OpenID provider (`/oidc/...` and its discovery at the root), which test/oidc-cluster.test.ts covers.
  return app.middleware
    .flatMap((middleware) => routesOf(middleware))
    .filter((route) => !route.path.startsWith('/fabric/') && !route.path.startsWith('/oidc/') && route.path !== '/.well-known/openid-configuration');
}
