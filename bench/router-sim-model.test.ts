import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostedServices } from '../common/control-channel/hosted-services.ts';
import { hostedServiceIds } from './router-simulator-frames.ts';
import { hostingGroups, modelBodies, routerRoleAttributes } from './router-sim-model.ts';

const size = { services: 100, servicePolicies: 40, edgeRouterPolicies: 20, identities: 7, terminatorsPerRouter: 30 };

describe('the router simulator benchmark\'s model', () => {
  it('has the sizes asked for, Bind policies first', () => {
    const bodies = modelBodies('p', size, 'cfg');
    assert.deepEqual([bodies.services.length, bodies.servicePolicies.length, bodies.edgeRouterPolicies.length, bodies.identities.length], [100, 40, 20, 7]);
    assert.equal(hostingGroups(size), 3);
    assert.deepEqual(bodies.servicePolicies.map((policy) => policy.type).slice(0, 4), ['Bind', 'Bind', 'Bind', 'Dial']);
    assert.deepEqual(bodies.services.filter((service) => (service.configs as string[]).length > 0).length, 90);
  });

  it('lets each simulated router Bind exactly the services the simulator registers for it', () => {
    const bodies = modelBodies('p', size, 'cfg');
    // Ids as the controller would give them: here the names.
    const services = bodies.services.map((service) => ({ id: String(service.name), roleAttributes: service.roleAttributes as string[], hostV1: (service.configs as string[]).length > 0 ? { protocol: 'tcp', address: '127.0.0.1', port: 18080 } : undefined }));
    const policies = bodies.servicePolicies.map((policy) => ({ id: String(policy.name), type: policy.type as 'Bind' | 'Dial', semantic: 'AnyOf' as const, identityRoles: policy.identityRoles as string[], serviceRoles: policy.serviceRoles as string[] }));
    const hostedIds = services.slice(0, hostingGroups(size) * size.terminatorsPerRouter).map((service) => service.id);
    for (const index of [0, 1, 2, 3, 7, 500]) {
      const router = { id: `r${index}`, roleAttributes: routerRoleAttributes(index, hostingGroups(size)), isTunnelerEnabled: true };
      const granted = [...hostedServices(router, services, policies).keys()].sort();
      assert.deepEqual(granted, hostedServiceIds(index, hostedIds, size.terminatorsPerRouter).sort(), `router ${index}`);
      assert.equal(granted.length, 30);
    }
  });

  it('refuses a group bigger than the services', () => {
    assert.throws(() => hostingGroups({ services: 10, terminatorsPerRouter: 30 }), /cannot make a group/);
    assert.equal(hostingGroups({ services: 10, terminatorsPerRouter: 0 }), 0);
    assert.deepEqual(routerRoleAttributes(5, 0), []);
  });
});
