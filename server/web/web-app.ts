// Builds the Koa application for one `web` entry of the controller config from the APIs it binds.
import type { Logger } from '../../common/log/logger.ts';
import type { EdgeServices } from '../edge/edge-services.ts';
import type { HealthChecker } from '../health/health-checker.ts';
import type { ControllerMetrics } from '../telemetry/controller-metrics.ts';
import { expositionContentType } from '../telemetry/prometheus-exposition.ts';
import { errorHandler, type RequestTracing } from './error-handler.ts';
import Koa from 'koa';
import { apiRouter, type ApiRouter } from './api-router.ts';
import type { RequestState } from './koa-state.ts';
import { apiSessionRoutes } from './routes/api-session-routes.ts';
import { authenticationRoutes } from './routes/authentication-routes.ts';
import { authenticatorRoutes, ownAuthenticatorRoutes } from './routes/authenticator-routes.ts';
import { healthRoutes } from './routes/health-routes.ts';
import { identityRoutes } from './routes/identity-routes.ts';
import { identityServiceConfigRoutes } from './routes/identity-service-config-routes.ts';
import { authPolicyRoutes } from './routes/auth-policy-routes.ts';
import { adminMfaRoutes, mfaRoutes } from './routes/mfa-routes.ts';
import { caRoutes } from './routes/ca-routes.ts';
import { caBundleRoute, clientEnrollmentRoutes, enrollmentRoutes } from './routes/enrollment-routes.ts';
import { clientExternalJwtSignerRoutes, externalJwtSignerRoutes } from './routes/ext-jwt-signer-routes.ts';
import { fabricClusterRoutes, type ClusterView } from './routes/fabric-cluster-routes.ts';
import { overlayRoutes } from './routes/overlay-routes.ts';
import { routeKit } from './routes/route-kit.ts';
import { apiPaths, versionBody, versionRoutes, type ApiBinding } from './routes/version-routes.ts';
import { sessionGuard } from './session-guard.ts';
import { rootPathAlias } from './root-path-alias.ts';
import { apiSessionCertificateRoutes } from './routes/api-session-certificate-routes.ts';
import { discoveryRoutes } from './routes/discovery-routes.ts';
import { databaseRoutes } from './routes/database-routes.ts';
import { fabricRouterRoutes } from './routes/fabric-router-routes.ts';
import { revocationRoutes } from './routes/revocation-routes.ts';
import { controllerSettingRoutes } from './routes/controller-setting-routes.ts';
import { caJwtRoutes } from './routes/ca-jwt-routes.ts';
import { specRoutes, type SpecSources } from './routes/spec-routes.ts';
import type { ControllerEntry } from '../cluster/controller-directory.ts';
import type { VersionInfo } from '../../common/version/version-info.ts';
import { discoveryDocument, oidcProviderRoutes } from './routes/oidc-provider-routes.ts';
import { oidcLoginRoutes } from './routes/oidc-login-routes.ts';

export interface WebAppDeps {
  readonly services: EdgeServices;
  readonly health: HealthChecker;
  readonly metrics: ControllerMetrics;
  readonly version: VersionInfo;
  /** For each API, the origins (https://host:port) where it is bound, across every web entry. */
  readonly baseUrls: Partial<Record<ApiBinding, readonly string[]>>;
  readonly raftState: () => { isRaftEnabled: boolean; isLeader: boolean };
  /** The member list and read-only flag, for the fabric API's `/cluster/list-members` (beside edge-management). */
  readonly cluster: ClusterView;
  /** True once the raft node stopped after a failure: sessions are no longer checked (session-guard.ts). */
  readonly unavailable?: () => boolean;
  /** Every member of the cluster with its API addresses, for `/controllers` (none listed when unset). */
  readonly controllers?: () => Promise<ControllerEntry[]>;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  readonly requestTimeoutMs?: number;
  /** Set only when tracing is on: each request gets a server span. */
  readonly tracing?: RequestTracing;
}

export function buildWebApp(bindings: readonly ApiBinding[], deps: WebAppDeps): Koa<RequestState> {
  const app = new Koa<RequestState>();
  app.silent = true;
  // The client API also answers at the root (root-path-alias.ts), where this entry binds it.
  const clientAtRoot = bindings.includes('edge-client');
  // One outer layer does the per-request bookkeeping (request id, errors, deadline, metrics, the legacy alias):
  // every extra Koa layer is another promise and dispatch on the hot path.
  app.use(
    errorHandler({
      logger: deps.logger,
      serverHeader: `edgeward-controller/${deps.version.version}`,
      requestTimeoutMs: deps.requestTimeoutMs ?? 10_000,
      rewritePath: (path) => rootPathAlias(path, clientAtRoot),
      observe: (path, method, route, status, seconds) => deps.metrics.recordRequest(apiOf(rootPathAlias(path, clientAtRoot) ?? path), route?.label, method, status, seconds),
      ...(deps.tracing ? { tracing: withoutPolling(deps.tracing) } : {}),
    }),
  );

  const kit = routeKit(deps.maxBodyBytes);
  const guard = sessionGuard(deps.services, deps.unavailable);
  // OIDC is served wherever the client API is (OpenZiti binds `edge-oidc` beside `edge-client` by default).
  const oidcServed = clientAtRoot && deps.services.oidc.enabled;
  const version = () => versionBody(deps.version, deps.baseUrls, deps.services.oidc.enabled);
  const mount = (router: ApiRouter) => app.use(router.middleware());

  // Each Edge API's router, for the API descriptions `/specs` serves (read when asked, so they list every route).
  const specSources: SpecSources = new Map();
  // When this controller first described its APIs: the specs' createdAt and updatedAt.
  let specsPublishedAt: string | undefined;
  const publishedAt = () => (specsPublishedAt ??= new Date(deps.services.clock.now()).toISOString());
  // One flat router per API: a request is matched against that API's routes only.
  for (const binding of bindings) {
    if (binding === 'edge-client' || binding === 'edge-management') {
      const api = apiRouter(apiPaths[binding]);
      versionRoutes(api, ['/', '/version'], version);
      specSources.set(binding, api);
      specRoutes(api, specSources, deps.version.version, publishedAt);
      authenticationRoutes(api, deps.services, kit, guard);
      mfaRoutes(api, deps.services, kit, guard);
      overlayRoutes(api, binding, deps.services, kit, guard);
      // Both specs list an identity's own authenticators.
      ownAuthenticatorRoutes(api, deps.services, kit, guard('full'));
      discoveryRoutes(api, binding, { clientOrigins: deps.baseUrls['edge-client'] ?? [], controllers: deps.controllers ?? (async () => []), networkJwts: () => deps.services.networkJwt.list() }, guard);
      if (binding === 'edge-client') {
        clientExternalJwtSignerRoutes(api, deps.services);
        clientEnrollmentRoutes(api, deps.services, kit);
        apiSessionCertificateRoutes(api, deps.services, kit, guard('full'));
      } else {
        const admin = guard('admin');
        identityRoutes(api, deps.services, kit, admin);
        identityServiceConfigRoutes(api, deps.services, kit, admin);
        adminMfaRoutes(api, deps.services, admin);
        authenticatorRoutes(api, deps.services, kit, admin);
        apiSessionRoutes(api, deps.services, admin);
        authPolicyRoutes(api, deps.services, kit, admin);
        externalJwtSignerRoutes(api, deps.services, kit, admin);
        caRoutes(api, deps.services, kit, admin);
        enrollmentRoutes(api, deps.services, kit, admin);
        // The management spec lists the EST CA bundle under its prefix too (the client API's comes with enrollment).
        caBundleRoute(api, deps.services);
        databaseRoutes(api, deps.services, admin);
        fabricRouterRoutes(api, deps.services, kit, admin);
        revocationRoutes(api, deps.services, kit, admin);
        controllerSettingRoutes(api, deps.services, kit, admin, async () => (deps.controllers ? (await deps.controllers()).map((member) => member.id) : []));
        caJwtRoutes(api, deps.services, admin);
      }
      mount(api);
      // The fabric API's cluster route is served wherever the management API is, to its administrators.
      if (binding === 'edge-management') mount(fabricClusterRoutes(deps.cluster, guard('admin')));
    }
  }
  if (bindings.includes('edge-client') || bindings.includes('edge-management')) {
    const root = apiRouter();
    versionRoutes(root, ['/', '/version'], version);
    caBundleRoute(root, deps.services);
    if (oidcServed) {
      root.get('/.well-known/openid-configuration', (ctx) => {
        ctx.status = 200;
        ctx.set('Cache-Control', 'public, max-age=300');
        ctx.type = 'application/json';
        ctx.body = JSON.stringify(discoveryDocument(deps.services.oidc.issuer));
      });
    }
    mount(root);
  }
  if (oidcServed) {
    const oidc = oidcProviderRoutes(deps.services, deps.maxBodyBytes);
    oidcLoginRoutes(oidc, deps.services, deps.maxBodyBytes);
    mount(oidc);
  }
  if (bindings.includes('health-checks')) mount(healthRoutes(deps.health, deps.raftState));
  if (bindings.includes('metrics')) {
    const router = apiRouter();
    router.get('/metrics', async (ctx) => {
      const text = await deps.metrics.text();
      ctx.status = 200;
      ctx.type = expositionContentType;
      ctx.body = text;
    });
    mount(router);
  }
  return app;
}

/** Scrapes and health polls come every few seconds and say nothing a trace would add: they get no span. */
function withoutPolling(tracing: RequestTracing): RequestTracing {
  return {
    startRequest: (method, path, headers, requestId) =>
      path === '/metrics' || path === '/health-checks' || path.startsWith('/health-checks/') ? undefined : tracing.startRequest(method, path, headers, requestId),
  };
}

/** The API a path belongs to, for metric labels. */
function apiOf(path: string): string {
  if (path.startsWith('/edge/client/')) return 'edge-client';
  if (path.startsWith('/edge/management/')) return 'edge-management';
  if (path.startsWith('/fabric/')) return 'fabric';
  if (path.startsWith('/health-checks')) return 'health-checks';
  if (path === '/metrics') return 'metrics';
  return 'root';
}
