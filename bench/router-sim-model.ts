// The policy model the router simulator benchmark loads through the management API before its routers connect: the
// 10x-Large policy set (2,000 services, 2,500 service policies, 2,500 edge router policies) with a small identity
// count. Services are cut into hosting groups of `terminatorsPerRouter`: group g's services carry `#rs-svc-g<g>`
// and one shared host.v1 config, and a Bind policy lets routers with `#rs-host-g<g>` host them; simulated router i
// is in group i mod groups, so it hosts exactly its group's services (router-simulator-frames.ts hostedServiceIds
// picks the same ones). The other service policies are Dial policies of identity roles over the groups, and the edge
// router policies pair identity roles with router groups, so the model is as big as the target's, not trivial.
import { ProbeClient } from './write-probe.ts';

export interface RouterSimModelSize {
  readonly services: number;
  readonly servicePolicies: number;
  readonly edgeRouterPolicies: number;
  readonly identities: number;
  readonly terminatorsPerRouter: number;
}

export interface RouterSimModel {
  /** The hosted services, in group order: what the simulator's `serviceIds` must be. */
  readonly hostedServiceIds: string[];
  readonly groups: number;
  /** The terminator address of the shared host.v1 config. */
  readonly terminatorAddress: string;
  readonly seconds: number;
  /** Entities created, by kind. */
  readonly created: Readonly<Record<string, number>>;
}

const hostAddress = { protocol: 'tcp', address: '127.0.0.1', port: 18080 } as const;
/** Identity role attributes are `rs-dial-<k>` for k below this. */
const dialRoles = 100;

/** How many hosting groups the services make (each `terminatorsPerRouter` services; the rest host nothing). */
export function hostingGroups(size: Pick<RouterSimModelSize, 'services' | 'terminatorsPerRouter'>): number {
  if (size.terminatorsPerRouter === 0) return 0;
  const groups = Math.floor(size.services / size.terminatorsPerRouter);
  if (groups === 0) throw new Error(`${size.services} services cannot make a group of ${size.terminatorsPerRouter} per router`);
  return groups;
}

/** The role attributes of simulated router `index`: its hosting group's. */
export function routerRoleAttributes(index: number, groups: number): string[] {
  return groups === 0 ? [] : [`rs-host-g${index % groups}`];
}

/** The body of every entity, kind by kind, in the order they must be made (configs before services). Pure. */
export function modelBodies(prefix: string, size: RouterSimModelSize, hostConfigId: string): { services: Record<string, unknown>[]; servicePolicies: Record<string, unknown>[]; edgeRouterPolicies: Record<string, unknown>[]; identities: Record<string, unknown>[] } {
  const groups = hostingGroups(size);
  const hostedCount = groups * size.terminatorsPerRouter;
  const services = Array.from({ length: size.services }, (_, i) => {
    const hosted = i < hostedCount;
    const group = hosted ? Math.floor(i / size.terminatorsPerRouter) : -1;
    return { name: `${prefix}-svc-${i}`, encryptionRequired: false, roleAttributes: hosted ? [`rs-svc-g${group}`] : ['rs-svc-unhosted'], configs: hosted ? [hostConfigId] : [] };
  });
  const binds = Math.min(groups, size.servicePolicies);
  const servicePolicies = Array.from({ length: size.servicePolicies }, (_, k) => {
    if (k < binds) return { name: `${prefix}-bind-${k}`, type: 'Bind', semantic: 'AnyOf', identityRoles: [`#rs-host-g${k}`], serviceRoles: [`#rs-svc-g${k}`], postureCheckRoles: [] };
    const group = groups === 0 ? 'unhosted' : `g${k % groups}`;
    return { name: `${prefix}-dial-${k}`, type: 'Dial', semantic: 'AnyOf', identityRoles: [`#rs-dial-${k % dialRoles}`], serviceRoles: [`#rs-svc-${group}`], postureCheckRoles: [] };
  });
  const edgeRouterPolicies = Array.from({ length: size.edgeRouterPolicies }, (_, k) => ({
    name: `${prefix}-erp-${k}`,
    semantic: 'AnyOf',
    identityRoles: [`#rs-dial-${k % dialRoles}`],
    edgeRouterRoles: [groups === 0 ? '#all' : `#rs-host-g${k % groups}`],
  }));
  const identities = Array.from({ length: size.identities }, (_, i) => ({ name: `${prefix}-id-${i}`, type: 'Default', isAdmin: false, roleAttributes: [`rs-dial-${i % dialRoles}`] }));
  return { services, servicePolicies, edgeRouterPolicies, identities };
}

/** Creates the model through `managementApi` (`concurrency` requests at once). */
export async function loadRouterSimModel(options: { managementApi: string; token: string; caPem: string; prefix: string; size: RouterSimModelSize; concurrency?: number; progress: (line: string) => void }): Promise<RouterSimModel> {
  const probe = new ProbeClient(options.caPem);
  const started = performance.now();
  const created: Record<string, number> = {};
  const post = async (path: string, body: Record<string, unknown>): Promise<string> => {
    const answer = await probe.post(`${options.managementApi}${path}`, JSON.stringify(body), { 'zt-session': options.token }, 60_000);
    if (answer.status !== 201) throw new Error(`POST ${path} (${String(body.name)}): HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
    created[path] = (created[path] ?? 0) + 1;
    return (JSON.parse(answer.text) as { data: { id: string } }).data.id;
  };
  try {
    const hostConfigId = await post('/configs', { name: `${options.prefix}-host`, configTypeId: 'host.v1', data: hostAddress });
    const bodies = modelBodies(options.prefix, options.size, hostConfigId);
    const many = async (path: string, list: Record<string, unknown>[]): Promise<string[]> => {
      const ids = new Array<string>(list.length);
      let next = 0;
      const worker = async () => {
        while (next < list.length) {
          const at = next++;
          ids[at] = await post(path, list[at]!);
        }
      };
      await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 16, Math.max(1, list.length)) }, worker));
      options.progress(`model: ${list.length} ${path.slice(1)} created`);
      return ids;
    };
    const serviceIds = await many('/services', bodies.services);
    await many('/service-policies', bodies.servicePolicies);
    await many('/edge-router-policies', bodies.edgeRouterPolicies);
    await many('/identities', bodies.identities);
    const groups = hostingGroups(options.size);
    return {
      hostedServiceIds: serviceIds.slice(0, groups * options.size.terminatorsPerRouter),
      groups,
      terminatorAddress: `${hostAddress.protocol}:${hostAddress.address}:${hostAddress.port}`,
      seconds: (performance.now() - started) / 1000,
      created,
    };
  } finally {
    probe.close();
  }
}
