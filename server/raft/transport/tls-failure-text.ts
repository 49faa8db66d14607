// Operators search logs for the texts the real controller prints when a node cannot join; Node's TLS errors say
// the same things in other words. This maps one to the other, keeping Node's own code alongside.

export function documentedTlsText(error: Error & { code?: string }): string {
  const code = error.code ?? '';
  const message = error.message ?? '';
  if (/UNABLE_TO_GET_ISSUER_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT|CERT_SIGNATURE_FAILURE|unknown ca|UNKNOWN_CA/i.test(`${code} ${message}`)) {
    return 'x509: certificate signed by unknown authority';
  }
  if (/PEER_DID_NOT_RETURN_A_CERTIFICATE|certificate required|CERTIFICATE_REQUIRED|no certs presented|did not present/i.test(`${code} ${message}`)) {
    return 'no certs presented matched the CA for this node';
  }
  if (/decrypt|bad record mac|BAD_DECRYPT|DECRYPTION_FAILED|wrong version number|WRONG_VERSION/i.test(`${code} ${message}`)) {
    return 'tls: error decrypting message';
  }
  return `tls: ${message || code}`;
}
