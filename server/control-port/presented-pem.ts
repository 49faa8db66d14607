// The certificate a TLS peer presented, as PEM text (what SPIFFE ids are read from).
import type { TLSSocket } from 'node:tls';

/** The presented certificate as PEM, or undefined when none was presented. */
export function presentedPem(socket: TLSSocket): string | undefined {
  const certificate = socket.getPeerCertificate(false);
  if (!certificate || !certificate.raw) return undefined;
  return `-----BEGIN CERTIFICATE-----\n${certificate.raw.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
}
