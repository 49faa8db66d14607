// The cluster's controller directory (GET /controllers), described from this controller's configuration: its id as
// name, its control address and certificate, and where each of its Edge APIs is served.
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import { apiAddressesOf, certificateFingerprint, ControllerDirectory, type DirectoryMember, type DirectoryPeers } from '../cluster/controller-directory.ts';
import { apiPaths } from '../web/routes/version-routes.ts';
import type { ControllerOptions } from './controller-options.ts';
import { baseUrlsOf } from './web-listeners.ts';

export function controllerDirectory(options: ControllerOptions, cluster: { members(): readonly DirectoryMember[] }, peers: DirectoryPeers, clock: Clock): ControllerDirectory {
  const baseUrls = baseUrlsOf(options.webs);
  const edgeApis = { 'edge-client': baseUrls['edge-client'], 'edge-management': baseUrls['edge-management'] };
  return new ControllerDirectory(
    {
      id: options.id,
      name: options.id,
      ctrlAddress: options.cluster.address,
      apiAddresses: apiAddressesOf(edgeApis, apiPaths),
      certPem: options.cluster.tls.certPem,
      fingerprint: certificateFingerprint(options.cluster.tls.certPem),
      startedAt: isoTime(clock.now()),
    },
    () => cluster.members(),
    peers,
    clock,
  );
}
