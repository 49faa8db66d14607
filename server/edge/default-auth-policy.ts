// The system authentication policy every identity starts with (id `default`), as the real controller ships it.
export const defaultAuthPolicy = {
  id: 'default',
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
    extJwt: { allowed: true, allowedSigners: [] as string[] },
  },
  secondary: { requireTotp: false, requireExtJwtSigner: null as string | null },
} as const;

export type UpdbRules = (typeof defaultAuthPolicy)['primary']['updb'];

/** The reasons a password breaks the policy's rules, empty when it is acceptable. */
export function passwordRuleViolations(password: string, rules: UpdbRules): string[] {
  const problems: string[] = [];
  if (password.length < rules.minPasswordLength) problems.push(`must be at least ${rules.minPasswordLength} characters`);
  if (rules.requireNumberChar && !/[0-9]/.test(password)) problems.push('must contain a number');
  if (rules.requireSpecialChar && !/[^A-Za-z0-9]/.test(password)) problems.push('must contain a special character');
  if (rules.requireMixedCase && !(/[a-z]/.test(password) && /[A-Z]/.test(password))) problems.push('must contain upper and lower case letters');
  return problems;
}
