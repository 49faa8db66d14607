// Which links this router dials to another router: one per (local dialer, remote link listener) pair whose groups
// meet, never to itself, only to `tls:` advertise addresses (the only link protocol spoken here). Pure.

import { formatAddress, parseAddress, type HostPort } from '../../common/config/address.ts';
import type { LinkListenerInfo, RouterInfo } from '../../common/control-channel/control-messages.ts';
import type { LinkConfig, LinkListenerConfig } from '../config/router-config.ts';
import { effectiveGroups, sharesGroup } from '../../common/control-channel/link-groups.ts';

export interface DialTarget {
  /** Stable identity of the pair: `<dialer index>/<router id>/<advertise>`. */
  readonly key: string;
  readonly routerId: string;
  readonly dialerIndex: number;
  /** `tls:<host>:<port>` as normalised here. */
  readonly advertise: string;
  readonly address: HostPort;
}

export interface SkippedListener {
  readonly advertise: string;
  readonly reason: string;
}

export interface DialPlan {
  readonly targets: readonly DialTarget[];
  /** Listeners that cannot be dialed at all (bad address, unsupported protocol), for a log line. */
  readonly skipped: readonly SkippedListener[];
}

export function dialTargetsFor(
  selfId: string,
  dialers: ReadonlyArray<{ readonly groups: readonly string[] }>,
  router: RouterInfo,
): DialPlan {
  if (router.id === selfId || dialers.length === 0) return { targets: [], skipped: [] };
  const targets = new Map<string, DialTarget>();
  const skipped: SkippedListener[] = [];
  const listeners = Array.isArray(router.linkListeners) ? router.linkListeners : [];
  const parsed = listeners.flatMap((listener): Array<{ listener: LinkListenerInfo; address: HostPort; advertise: string }> => {
    const advertise = typeof listener?.advertise === 'string' ? listener.advertise : '';
    const result = parseAddress(advertise, ['tls']);
    if (!result.ok) {
      skipped.push({ advertise, reason: result.message });
      return [];
    }
    return [{ listener, address: { host: result.value.host, port: result.value.port }, advertise: formatAddress(result.value) }];
  });
  dialers.forEach((dialer, dialerIndex) => {
    for (const { listener, address, advertise } of parsed) {
      if (!sharesGroup(dialer.groups, Array.isArray(listener.groups) ? listener.groups : undefined)) continue;
      const key = `${dialerIndex}/${router.id}/${advertise}`;
      if (!targets.has(key)) targets.set(key, { key, routerId: router.id, dialerIndex, advertise, address });
    }
  });
  return { targets: [...targets.values()], skipped };
}

/** What this router tells the controller about its link listeners (`router.hello`): advertise and groups. */
export function advertisedLinkListeners(link: LinkConfig | undefined, boundPorts?: readonly number[]): LinkListenerInfo[] {
  return (link?.listeners ?? []).map((listener: LinkListenerConfig, index) => {
    // A listener bound to port 0 (tests) advertises the port it got, when the caller knows it.
    const port = listener.advertise.port === 0 && boundPorts?.[index] !== undefined ? boundPorts[index]! : listener.advertise.port;
    return {
      binding: 'transport',
      advertise: formatAddress({ protocol: listener.advertise.protocol, host: listener.advertise.host, port }),
      groups: [...effectiveGroups(listener.groups)],
    };
  });
}
