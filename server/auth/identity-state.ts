// Whether an identity may authenticate right now: disabled by an admin, or locked out until a time.
import type { Identity } from '../model/entities.ts';

export function isIdentityDisabled(identity: Identity, now: number): boolean {
  if (!identity.disabledAt) return false;
  return identity.disabledUntil === null || Date.parse(identity.disabledUntil) > now;
}
