// What a client or tool asks before anything else, on both Edge APIs: the identity and posture check types, the
// enumerated capabilities, the network JWT, the client API's protocols (client API only) and every controller of the cluster with
// its API addresses (`/controllers`: a session on the client API, an admin on the management API).
import type { Middleware } from 'koa';
import type { ControllerEntry } from '../../cluster/controller-directory.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { FieldCatalogue } from '../query/list-query.ts';
import type { ApiRouter } from '../api-router.ts';
import type { RequestState } from '../koa-state.ts';
import { link } from '../views/links.ts';
import { enumeratedCapabilities, identityTypes, postureCheckTypes, type CatalogueEntry } from './catalogue-types.ts';
import { sendDetail, sendJson, sendList } from './route-kit.ts';

export interface DiscoveryDeps {
  /** The network JWTs (network-jwt.ts). */
  readonly networkJwts: () => Promise<Array<{ name: string; token: string }>>;
  /** The origins (https://host:port) the client API is bound at. */
  readonly clientOrigins: readonly string[];
  /** Every member of the cluster (controller-directory.ts). */
  readonly controllers: () => Promise<ControllerEntry[]>;
}

const byName = <T extends CatalogueEntry & { name: string }>(): FieldCatalogue<T> => ({
  id: { type: 'string', get: (row) => row.id },
  name: { type: 'string', get: (row) => row.name },
  createdAt: { type: 'datetime', get: (row) => row.createdAt },
  updatedAt: { type: 'datetime', get: (row) => row.updatedAt },
});

const controllerCatalogue: FieldCatalogue<ControllerEntry> = {
  id: { type: 'string', get: (row) => row.id },
  name: { type: 'string', get: (row) => row.name },
  isOnline: { type: 'boolean', get: (row) => row.isOnline },
  ctrlAddress: { type: 'string', get: (row) => row.ctrlAddress },
};

const base = (entity: string, row: CatalogueEntry) => ({ id: row.id, createdAt: row.createdAt, updatedAt: row.updatedAt, tags: {}, _links: { self: link(`./${entity}/${row.id}`) } });

function controllerView(row: ControllerEntry) {
  // A member that did not answer has no start time: the epoch says "unknown" in a date-time field.
  const at = row.startedAt || new Date(0).toISOString();
  return {
    id: row.id,
    createdAt: at,
    updatedAt: at,
    tags: {},
    _links: { self: link(`./controllers/${row.id}`) },
    name: row.name,
    ctrlAddress: row.ctrlAddress,
    apiAddresses: row.apiAddresses,
    certPem: row.certPem,
    fingerprint: row.fingerprint,
    isOnline: row.isOnline,
    isPreferredLeader: row.isPreferredLeader,
    lastJoinedAt: at,
  };
}

export function discoveryRoutes(router: ApiRouter, api: 'edge-client' | 'edge-management', deps: DiscoveryDeps, guard: (access: 'full' | 'admin') => Middleware<RequestState>): void {
  router.get('/enumerated-capabilities', (ctx) => sendJson(ctx, 200, { data: [...enumeratedCapabilities], meta: {} }));
  router.get('/network-jwts', async (ctx) => sendJson(ctx, 200, { data: await deps.networkJwts(), meta: {} }));
  router.get('/controllers', guard(api === 'edge-client' ? 'full' : 'admin'), async (ctx) => sendList(ctx, await deps.controllers(), controllerCatalogue, controllerView));
  if (api === 'edge-client') {
    router.get('/protocols', (ctx) => {
      const origin = deps.clientOrigins[0];
      sendJson(ctx, 200, { data: origin ? { https: { address: new URL(origin).host } } : {}, meta: {} });
    });
    return;
  }
  const admin = guard('admin');
  router.get('/identity-types', admin, (ctx) => sendList(ctx, identityTypes, byName(), (row) => ({ ...base('identity-types', row), name: row.name })));
  router.get('/identity-types/:id', admin, (ctx) => {
    const row = identityTypes.find((type) => type.id === ctx.params.id);
    if (!row) throw EdgeError.notFound('identity type', ctx.params.id!);
    sendDetail(ctx, { ...base('identity-types', row), name: row.name });
  });
  const postureView = (row: (typeof postureCheckTypes)[number]) => ({ ...base('posture-check-types', row), name: row.name, version: row.version, operatingSystems: row.operatingSystems });
  router.get('/posture-check-types', admin, (ctx) => sendList(ctx, postureCheckTypes, byName(), postureView));
  router.get('/posture-check-types/:id', admin, (ctx) => {
    const row = postureCheckTypes.find((type) => type.id === ctx.params.id);
    if (!row) throw EdgeError.notFound('posture check type', ctx.params.id!);
    sendDetail(ctx, postureView(row));
  });
}
