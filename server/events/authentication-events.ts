// Authentication events (`authentication`, also subscribed as `edge.authentications`): one per primary login
// attempt, on the controller that answered it, in the real controller's shape. Pure: an attempt in, an event out.

/** How a primary authentication ended, for the metrics: `throttled` is a 429 RATE_LIMITED (no event is written for it). */
export type AuthenticationOutcome = 'success' | 'failure' | 'throttled';

/** What the authenticate route saw of one attempt. */
export interface AuthenticationAttempt {
  readonly method: 'password' | 'cert' | 'ext-jwt';
  readonly success: boolean;
  /** Why it failed (empty on success). */
  readonly reason: string;
  readonly identityId?: string;
  /** The authenticator used; for ext-jwt, the signer that verified the token. */
  readonly authenticatorId?: string;
  readonly signerId?: string;
  readonly authPolicyId?: string;
  readonly remoteAddress: string;
}

export interface AuthenticationEventContext {
  readonly controllerId: string;
  readonly now: () => number;
}

/** The real controller names password logins `updb`, after the authenticator type. */
const methodNames = { password: 'updb', cert: 'cert', 'ext-jwt': 'ext-jwt' } as const;

export function authenticationEvent(attempt: AuthenticationAttempt, context: AuthenticationEventContext): Record<string, unknown> {
  const extJwt = attempt.method === 'ext-jwt';
  return {
    namespace: 'authentication',
    event_src_id: context.controllerId,
    timestamp: new Date(context.now()).toISOString(),
    event_type: attempt.success ? 'success' : 'fail',
    type: methodNames[attempt.method],
    // An ext-jwt login has no authenticator of its own: the signer goes in external_jwt_signer_id.
    authenticator_id: extJwt ? '' : (attempt.authenticatorId ?? ''),
    external_jwt_signer_id: extJwt ? (attempt.signerId ?? attempt.authenticatorId ?? '') : '',
    identity_id: attempt.identityId ?? '',
    auth_policy_id: attempt.authPolicyId ?? '',
    remote_address: attempt.remoteAddress,
    success: attempt.success,
    reason: attempt.reason,
    improper_client_cert_chain: false,
  };
}
