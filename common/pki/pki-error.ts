// The one error type for expected PKI failures: a code from a closed list and a message an operator can act on.

export const pkiErrorCodes = [
  'INVALID_ARGUMENT', // a name, address, id or option the caller supplied breaks a rule
  'INVALID_CERTIFICATE', // PEM that is not a parsable X.509 certificate
  'INVALID_KEY', // PEM that is not a usable PKCS#8 ECDSA P-256 private key
  'INVALID_ISSUER', // an issuer that is not a CA, or whose key does not match its certificate
  'ISSUER_EXPIRED', // an issuer whose validity has ended
  'INVALID_CSR', // a certificate request that cannot be parsed
  'CSR_SIGNATURE_INVALID', // a certificate request whose self-signature does not verify
  'UNSUPPORTED_KEY', // a certificate request carrying a key type or size we do not certify
  'ALREADY_EXISTS', // a file that would be overwritten without force
  'NOT_INITIALIZED', // a PKI directory with no CA yet
  'INCOMPLETE_PKI', // a PKI directory missing some of its CA files
  'TRUST_DOMAIN_MISMATCH', // a PKI directory initialized for another trust domain
  'IO', // a file that could not be read or written
] as const;

export type PkiErrorCode = (typeof pkiErrorCodes)[number];

export class PkiError extends Error {
  constructor(
    readonly code: PkiErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PkiError';
  }
}
