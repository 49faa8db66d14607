// Whether the controller that signed a route may sign it now. Its certificate must be a controller's
// (controller-identity.ts), its id (the SPIFFE id's) must be the route's `controllerId`, and that id must be a member
// of the cluster as the control channel last announced it (`ctrl.welcome`, `ctrl.members`). So a controller removed
// from the cluster signs nothing any more though its certificate is still valid, and no controller issues routes in
// another's name. Until the router has heard the members once, it takes no route. Pure but for the verdicts kept.
import type { X509Certificate } from 'node:crypto';
import type { CircuitRoute } from '../../common/circuits/circuit-route.ts';
import { verifyControllerCertificate, type ControllerTrust, type ControllerVerdict } from '../run/controller-identity.ts';

/**
 * Whether a route signer's certificate is a controller's, kept per certificate object: the signer chains
 * (signer-chain.ts) hand back the same object for a chain they remember, so a busy path reads a controller's SPIFFE id
 * once, not per circuit. The verdict depends on the certificate and the router's fixed trust alone; membership,
 * which changes, is not part of it and is checked per route (routeAuthorityProblem). Entries go with their
 * certificates (a WeakMap), so the chains' bound is theirs.
 */
export class ControllerVerdicts {
  private readonly verdicts = new WeakMap<X509Certificate, ControllerVerdict>();

  constructor(private readonly trust: ControllerTrust) {}

  of(certificate: X509Certificate): ControllerVerdict {
    let verdict = this.verdicts.get(certificate);
    if (verdict === undefined) {
      verdict = verifyControllerCertificate(certificate, this.trust);
      this.verdicts.set(certificate, verdict);
    }
    return verdict;
  }
}

/** Why the route's signer may not sign it, or undefined when it may. `members`: undefined before the first welcome. */
export function routeAuthorityProblem(signer: ControllerVerdict, route: CircuitRoute, members: ReadonlySet<string> | undefined): string | undefined {
  if (!signer.ok) return `the route was not signed by a controller: ${signer.reason}`;
  if (signer.controllerId === undefined) return 'the route signer\'s certificate names no controller id, so it cannot be matched to the route\'s controller';
  if (signer.controllerId !== route.controllerId) return `the route names controller ${route.controllerId} but was signed by controller ${signer.controllerId}`;
  if (members === undefined) return 'this router has not yet heard the cluster\'s members from a controller';
  if (!members.has(signer.controllerId)) return `controller ${signer.controllerId} is not a member of the cluster now`;
  return undefined;
}
