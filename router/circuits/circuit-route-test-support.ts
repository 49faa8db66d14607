// Test support: the unsigned circuit route the forwarder tests sign and send, with fresh circuit ids. Not used by
// the router.
import { randomBytes } from 'node:crypto';
import type { CircuitRoute } from '../../common/circuits/circuit-route.ts';

/** The service every forwarder test route names. */
export const testServiceId = 'svc1';

/**
 * A route for service `echo` from router r1's identity over `routers` and `links`, ending at a terminator at `address`
 * on the last router, whose certificate fingerprint is `egressFingerprint`.
 */
export function testCircuitRoute(
  routers: readonly string[],
  links: readonly string[],
  address: string,
  egressFingerprint: string,
  overrides: Partial<CircuitRoute> = {},
): CircuitRoute {
  return {
    circuitId: `c${randomBytes(8).toString('hex')}`,
    serviceId: testServiceId,
    serviceName: 'echo',
    identityId: 'r1',
    routers,
    links,
    terminator: { id: 't1', routerId: routers[routers.length - 1]!, address },
    controllerId: 'ctrl1',
    egressFingerprint,
    issuedAt: Date.now(),
    ...overrides,
  };
}
