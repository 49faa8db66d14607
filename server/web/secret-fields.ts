// Which request fields hold secrets: passwords, session and enrollment tokens, TOTP and recovery codes, keys. An
// error about one of them names the field and the rule it broke, never the value, whichever schema or service
// raised it: validators leave the value out, and the error envelope drops any `value` a cause about such a field
// still carries. Judged by name, so a schema added later is covered without being listed here.

// A whole key (`code`, `key`) or a key's last word (`currentPassword`, `enrollmentToken`, `clientSecret`): not any
// key that merely mentions one (`requireExtJwtSigner` names a signer, `enrollToTokenEnabled` is a flag).
const secretName = /^(code|key|otp|totp|recoveryCodes?|privateKey)$|(password|passphrase|secret|token|jwt)$/i;

/** True when any key of a field path (`password`, `primary.updb.password`, `recoveryCodes[0]`) names a secret. */
export function isSecretField(field: string): boolean {
  return field.split(/[.[\]"]+/).some((segment) => segment !== '' && secretName.test(segment));
}

/** The cause as it may leave the process: a field cause about a secret loses its `value`. */
export function clientSafeCause<C extends object>(cause: C): C {
  if (!('field' in cause) || !('value' in cause) || typeof cause.field !== 'string' || !isSecretField(cause.field)) return cause;
  const { value: _secret, ...rest } = cause as C & { value: unknown };
  return rest as C;
}
