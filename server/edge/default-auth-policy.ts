// The system authentication policy every identity starts with (id `default`), as the real controller ships it. It
// exists before anyone stores it; an admin's first update stores the changed version.
import type { AuthPolicy, AuthPolicyPrimary } from '../model/entities.ts';
import { defaultAuthPolicyId } from '../model/model-state-machine.ts';

const epoch = new Date(0).toISOString();

export const defaultAuthPolicy: AuthPolicy = {
  id: defaultAuthPolicyId,
  createdAt: epoch,
  updatedAt: epoch,
  tags: {},
  name: 'Default',
  primary: {
    cert: { allowed: true, allowExpiredCerts: true },
    updb: {
      allowed: true,
      minPasswordLength: 5,
      requireSpecialChar: false,
      requireNumberChar: false,
      requireMixedCase: false,
      maxAttempts: 0,
      lockoutDurationMinutes: 0,
    },
    extJwt: { allowed: true, allowedSigners: [] },
  },
  secondary: { requireTotp: false, requireExtJwtSigner: null },
};

export type UpdbRules = AuthPolicyPrimary['updb'];

/** The reasons a password breaks the policy's rules, empty when it is acceptable. */
export function passwordRuleViolations(password: string, rules: UpdbRules): string[] {
  const problems: string[] = [];
  if (password.length < rules.minPasswordLength) problems.push(`must be at least ${rules.minPasswordLength} characters`);
  if (rules.requireNumberChar && !/[0-9]/.test(password)) problems.push('must contain a number');
  if (rules.requireSpecialChar && !/[^A-Za-z0-9]/.test(password)) problems.push('must contain a special character');
  if (rules.requireMixedCase && !(/[a-z]/.test(password) && /[A-Z]/.test(password))) problems.push('must contain upper and lower case letters');
  return problems;
}
