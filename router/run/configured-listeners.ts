// What `router run` does with the `listeners` and `dialers` sections in this release. It reads them once, at start
// (a change needs a restart): it logs each listener and dialer binding, and reports its edge listeners to the
// controller in the hello as OpenZiti edge routers do, `supportedProtocols`: protocol → advertise URL
// (`{tls: "tls://router1.example:3022"}`). It serves no data plane: SDK connections, tunnel interception and service
// hosting are not part of this release, so nothing listens on these addresses. Pure: config in, log fields out.

import { formatAddress, formatHostPort } from '../../common/config/address.ts';
import type { LogFields } from '../../common/log/logger.ts';
import type { ListenerConfig, RouterConfig } from '../config/router-config.ts';

/** The fields of one `listener configured` log line per listener, in file order. */
export function listenerLogFields(listeners: readonly ListenerConfig[]): LogFields[] {
  return listeners.map((listener, index) => {
    if (listener.binding === 'tunnel') {
      const { mode, ...options } = listener.options;
      return { index, binding: 'tunnel', mode, options };
    }
    return {
      index,
      binding: listener.binding,
      bind: formatAddress(listener.bind),
      advertise: listener.advertise === undefined ? null : formatHostPort(listener.advertise),
      options: listener.options,
    };
  });
}

/** The fields of one `dialer configured` log line per dialer binding. */
export function dialerLogFields(config: RouterConfig): LogFields[] {
  return (config.dialers ?? []).map((dialer, index) => ({ index, binding: dialer.binding, options: dialer.options }));
}

export interface SupportedProtocols {
  /** protocol → `<protocol>://<advertise host>:<port>`, for the hello. */
  readonly protocols: Readonly<Record<string, string>>;
  /** Edge listeners left out, and why (logged as warnings). */
  readonly skipped: readonly { readonly index: number; readonly reason: string }[];
}

/** The `binding: edge` listeners as the hello reports them: the listen protocol, at the advertised host and port. */
export function supportedProtocolsOf(listeners: readonly ListenerConfig[]): SupportedProtocols {
  const protocols: Record<string, string> = {};
  const skipped: { index: number; reason: string }[] = [];
  listeners.forEach((listener, index) => {
    if (listener.binding !== 'edge') return;
    const protocol = listener.bind.protocol;
    if (listener.advertise === undefined) skipped.push({ index, reason: 'no advertise address: SDKs would not know where to connect' });
    else if (Object.hasOwn(protocols, protocol)) skipped.push({ index, reason: `an earlier edge listener already reports protocol ${protocol}` });
    else protocols[protocol] = `${protocol}://${formatHostPort(listener.advertise)}`;
  });
  return { protocols, skipped };
}
