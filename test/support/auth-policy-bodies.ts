// Auth-policy request bodies in the full shape the management API takes, with the default policy's values.
export interface PolicyOverrides {
  readonly cert?: Partial<{ allowed: boolean; allowExpiredCerts: boolean }>;
  readonly updb?: Partial<{
    allowed: boolean;
    minPasswordLength: number;
    requireSpecialChar: boolean;
    requireNumberChar: boolean;
    requireMixedCase: boolean;
    maxAttempts: number;
    lockoutDurationMinutes: number;
  }>;
  readonly extJwt?: Partial<{ allowed: boolean; allowedSigners: string[] }>;
  readonly secondary?: Partial<{ requireTotp: boolean; requireExtJwtSigner: string | null }>;
}

export function authPolicyBody(name: string, overrides: PolicyOverrides = {}) {
  return {
    name,
    primary: {
      cert: { allowed: true, allowExpiredCerts: true, ...overrides.cert },
      updb: {
        allowed: true,
        minPasswordLength: 5,
        requireSpecialChar: false,
        requireNumberChar: false,
        requireMixedCase: false,
        maxAttempts: 0,
        lockoutDurationMinutes: 0,
        ...overrides.updb,
      },
      extJwt: { allowed: true, allowedSigners: [], ...overrides.extJwt },
    },
    secondary: { requireTotp: false, requireExtJwtSigner: null, ...overrides.secondary },
  };
}
