// Operators search logs for the texts the real controller prints when a node cannot join; Node's TLS errors say
// the same things in other words. This maps one to the other, keeping Node's own code alongside. Only these fixed
// texts go into a log line's msg; any other failure is logged by its `code` and `error` fields, since Node's message
// can quote what the other side sent (its certificate's names).

/** The log line of a failed peer TLS handshake: a constant msg, or one of the documented texts after it. */
export function tlsFailureLine(error: Error & { code?: string }): { readonly msg: string; readonly fields: { code: string | undefined; error: string } } {
  const text = documentedTlsText(error);
  return { msg: text === undefined ? 'peer TLS handshake failed' : `peer TLS handshake failed: ${text}`, fields: { code: error.code, error: error.message } };
}

/** The documented text this failure means, if any. */
export function documentedTlsText(error: Error & { code?: string }): string | undefined {
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
  return undefined;
}
