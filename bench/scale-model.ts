// The 10x-Large model's entities other than identities, created through the management API a fixed number of
// requests at a time, and the role attributes that tie them together so that each policy selects a realistic subset:
// identities carry one of `groups` attributes (`scale-id-<k>`, bench/wrk/unique-writes.lua), services one of
// `serviceGroups` (`scale-svc-<k>`), edge routers one of `routerGroups` (`scale-er-<k>`); service policy i lets
// identity group i mod groups dial service group i mod serviceGroups, edge router policy i lets identity group
// i mod groups use router group i mod routerGroups.
import type { ProbeClient } from './write-probe.ts';
import type { EntityLoad } from './scale-bench-report.ts';

export const identityRolePrefix = 'scale-id';

export interface ModelShape {
  readonly services: number;
  readonly servicePolicies: number;
  readonly edgeRouterPolicies: number;
  readonly edgeRouters: number;
  /** Identity groups (each identity is in one). */
  readonly groups: number;
}

/** Services per service group and routers per router group: about 8 and 10 at the full model. */
const serviceGroupsOf = (shape: ModelShape) => Math.max(1, Math.ceil(shape.services / 8));
const routerGroupsOf = (shape: ModelShape) => Math.max(1, Math.ceil(shape.edgeRouters / 10));

export interface EntityPlan {
  readonly kind: string;
  readonly path: string;
  readonly count: number;
  readonly body: (i: number) => Record<string, unknown>;
}

/** The kinds in the order they are created. */
export function entityPlans(shape: ModelShape, prefix: string): EntityPlan[] {
  const serviceGroups = serviceGroupsOf(shape);
  const routerGroups = routerGroupsOf(shape);
  return [
    { kind: 'services', path: '/services', count: shape.services, body: (i) => ({ name: `${prefix}-svc-${i}`, encryptionRequired: true, roleAttributes: [`scale-svc-${i % serviceGroups}`] }) },
    { kind: 'edge routers', path: '/edge-routers', count: shape.edgeRouters, body: (i) => ({ name: `${prefix}-er-${i}`, isTunnelerEnabled: false, roleAttributes: [`scale-er-${i % routerGroups}`] }) },
    {
      kind: 'service policies',
      path: '/service-policies',
      count: shape.servicePolicies,
      body: (i) => ({ name: `${prefix}-sp-${i}`, type: 'Dial', semantic: 'AnyOf', identityRoles: [`#${identityRolePrefix}-${i % shape.groups}`], serviceRoles: [`#scale-svc-${i % serviceGroups}`] }),
    },
    {
      kind: 'edge router policies',
      path: '/edge-router-policies',
      count: shape.edgeRouterPolicies,
      body: (i) => ({ name: `${prefix}-erp-${i}`, semantic: 'AnyOf', identityRoles: [`#${identityRolePrefix}-${i % shape.groups}`], edgeRouterRoles: [`#scale-er-${i % routerGroups}`] }),
    },
  ];
}

/** Creates `plan.count` entities, `concurrency` requests at a time; a refused one is counted, not retried (but for
 * 503, the cluster between leaders, which is sent again for up to 30 s). Gives up
 * (throws) when the first 50 all failed, or at `deadline` (performance.now()). */
export async function createEntities(probe: ProbeClient, managementApi: string, token: string, plan: EntityPlan, concurrency: number, deadline: number): Promise<EntityLoad> {
  const began = performance.now();
  let next = 0;
  let created = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const worker = async () => {
    while (next < plan.count) {
      if (performance.now() > deadline) throw new Error(`creating ${plan.kind}: ${created} of ${plan.count} created when the phase's time ran out`);
      const i = next++;
      try {
        let answer = await probe.post(`${managementApi}${plan.path}`, JSON.stringify(plan.body(i)), { 'zt-session': token }, 60_000);
        // 503 CLUSTER_NO_LEADER during an election (the 1M run lost 90 edge routers to one): sent again, for up to 30 s.
        for (let retry = 0; answer.status === 503 && retry < 30 && performance.now() < deadline; retry++) {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          answer = await probe.post(`${managementApi}${plan.path}`, JSON.stringify(plan.body(i)), { 'zt-session': token }, 60_000);
        }
        if (answer.status === 201) created++;
        else {
          failed++;
          firstFailure ??= `HTTP ${answer.status} ${answer.text.slice(0, 160)}`;
        }
      } catch (error) {
        failed++;
        firstFailure ??= (error as Error).message;
      }
      if (created === 0 && failed >= 50) throw new Error(`creating ${plan.kind}: the first 50 all failed: ${firstFailure}`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, plan.count)) }, worker));
  return { kind: plan.kind, count: created, seconds: (performance.now() - began) / 1000, failed, ...(firstFailure === undefined ? {} : { firstFailure }) };
}
