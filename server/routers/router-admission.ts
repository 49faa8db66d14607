// Whether a router may hold a control channel: its first frame must be a well-formed `router.hello`, the common name
// of its (already chain-verified) client certificate must name an enrolled, enabled edge router, that certificate
// must be the very one the router enrolled with (its SHA-1 fingerprint), and the hello must name the same router.
// Pure: the caller looks the router up and reads the certificate.
import type { LinkListenerInfo, RouterHello } from '../../common/control-channel/control-messages.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { readDialerGroups } from './link-reach.ts';

export interface PresentedCertificate {
  readonly commonName: string | undefined;
  /** SHA-1 of the leaf's DER, lowercase hex. */
  readonly fingerprint: string;
}

export type HelloCheck = { readonly ok: true; readonly hello: RouterHello } | { readonly ok: false; readonly reason: string };
export type Admission = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** The first frame, read as a router.hello; a reason when it is something else or malformed. */
export function readHello(frame: unknown): HelloCheck {
  const value = frame as Record<string, unknown> | null;
  if (typeof value !== 'object' || value === null || value.type !== 'router.hello') {
    return { ok: false, reason: `expected router.hello as the first frame, got ${describeType(value)}` };
  }
  const bad = (reason: string): HelloCheck => ({ ok: false, reason: `malformed router.hello: ${reason}` });
  if (typeof value.routerId !== 'string' || value.routerId === '') return bad('routerId must be a non-empty string');
  if (typeof value.version !== 'string') return bad('version must be a string');
  if (!Array.isArray(value.linkListeners)) return bad('linkListeners must be a list');
  const linkListeners: LinkListenerInfo[] = [];
  for (const [index, item] of value.linkListeners.entries()) {
    const listener = item as Record<string, unknown> | null;
    if (typeof listener !== 'object' || listener === null) return bad(`linkListeners[${index}] must be an object`);
    if (listener.binding !== 'transport') return bad(`linkListeners[${index}].binding must be "transport"`);
    if (typeof listener.advertise !== 'string' || !/^tls:(\[[^\]]+\]|[^:\s]+):\d{1,5}$/.test(listener.advertise)) {
      return bad(`linkListeners[${index}].advertise must be tls:<host>:<port>`);
    }
    if (!Array.isArray(listener.groups) || !listener.groups.every((group) => typeof group === 'string')) return bad(`linkListeners[${index}].groups must be a list of strings`);
    linkListeners.push({ binding: 'transport', advertise: listener.advertise, groups: [...(listener.groups as string[])] });
  }
  if (value.hostname !== undefined && typeof value.hostname !== 'string') return bad('hostname must be a string');
  const protocols = value.supportedProtocols;
  if (protocols !== undefined && (typeof protocols !== 'object' || protocols === null || Array.isArray(protocols) || !Object.values(protocols).every((v) => typeof v === 'string'))) {
    return bad('supportedProtocols must map protocol names to addresses');
  }
  let dialerGroups: string[] | undefined;
  if (value.routersChanged === true && value.linkDialerGroups !== undefined) {
    const read = readDialerGroups(value.linkDialerGroups);
    if (!read.ok) return bad(read.reason);
    dialerGroups = read.groups;
  }
  return {
    ok: true,
    hello: {
      type: 'router.hello',
      routerId: value.routerId,
      version: value.version,
      linkListeners,
      ...(typeof value.hostname === 'string' ? { hostname: value.hostname } : {}),
      ...(protocols !== undefined ? { supportedProtocols: { ...(protocols as Record<string, string>) } } : {}),
      // Anything but true (absent, or an older router's field of another meaning) means whole models only.
      ...(value.edgeModelDeltas === true ? { edgeModelDeltas: true } : {}),
      // Likewise: only true means the router verifies routes signed in batches.
      ...(value.routeBatches === true ? { routeBatches: true } : {}),
      // Likewise: anything but true means one `ctrl.routerConnected` / `ctrl.routerDisconnected` per router, about all.
      ...(value.routersChanged === true ? { routersChanged: true } : {}),
      ...(dialerGroups !== undefined ? { linkDialerGroups: dialerGroups } : {}),
    },
  };
}

/** Checks a router (looked up by the certificate's common name) against its certificate and hello. */
export function admitRouter(certificate: PresentedCertificate, hello: RouterHello, router: EdgeRouter | undefined): Admission {
  const name = certificate.commonName;
  if (!name) return { ok: false, reason: 'the client certificate has no common name' };
  if (!router) return { ok: false, reason: `no edge router has the id ${name} (the client certificate's common name)` };
  if (hello.routerId !== name) return { ok: false, reason: `router.hello names router ${hello.routerId} but the client certificate names ${name}` };
  if (!router.isVerified || router.fingerprint === null) return { ok: false, reason: `edge router ${name} is not enrolled` };
  if (router.fingerprint !== certificate.fingerprint) {
    return { ok: false, reason: `the client certificate is not the one edge router ${name} enrolled with (fingerprint ${certificate.fingerprint}; re-enrolled, or issued elsewhere)` };
  }
  if (router.disabled) return { ok: false, reason: `edge router ${name} is disabled` };
  return { ok: true };
}

function describeType(value: Record<string, unknown> | null): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'nothing';
  return typeof value.type === 'string' ? JSON.stringify(value.type) : 'a frame without a type';
}
