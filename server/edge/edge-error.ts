// The domain's one error type for expected failures: a code from a closed list, an optional client-visible cause
// and an internal cause that is logged, never sent. How a code is shown to a client (HTTP status, message, headers)
// is the web layer's business (server/web/api-error.ts); the domain only says what went wrong.

/** Every expected failure the controller reports; the web layer has one status and message per code. */
export const edgeErrorCodes = [
  'COULD_NOT_VALIDATE',
  'COULD_NOT_PARSE_BODY',
  'INVALID_AUTH_METHOD',
  'MFA_INVALID_TOKEN',
  'INVALID_FIELD',
  'INVALID_FILTER',
  'INVALID_PAGINATION',
  'INVALID_SORT_IDENTIFIER',
  'INVALID_ENROLLMENT_TOKEN',
  'COULD_NOT_PROCESS_CSR',
  'INVALID_COMMON_NAME',
  'CERTIFICATE_FAILED_VALIDATION',
  'EXPECTED_PEM_CERTIFICATE',
  'COULD_NOT_PARSE_DER_BLOCK',
  'ENTITY_CAN_NOT_BE_DELETED',
  'UNAUTHORIZED',
  'INVALID_AUTH',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'NOT_ACCEPTABLE',
  'MFA_EXISTS',
  'MFA_NOT_ENROLLED',
  'CAN_NOT_DELETE_REFERENCED_ENTITY',
  'CA_ALREADY_VERIFIED',
  'ENROLLMENT_EXISTS',
  'CAN_NOT_UPDATE_AUTHENTICATOR',
  'INVALID_POSTURE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'SERVER_TOO_MANY_REQUESTS',
  'RATE_LIMITED',
  'UNHANDLED',
  'TIMEOUT',
  'CLUSTER_NO_LEADER',
  'CLUSTER_READ_ONLY',
  'CONTROLLER_UNAVAILABLE',
  'SNAPSHOT_FAILED',
] as const;

export type EdgeErrorCode = (typeof edgeErrorCodes)[number];

const knownCodes: ReadonlySet<string> = new Set(edgeErrorCodes);

/** True for a code of the closed list (a refusal read back from the raft log is only a string). */
export const isEdgeErrorCode = (code: unknown): code is EdgeErrorCode => typeof code === 'string' && knownCodes.has(code);

/** A field-level cause `{field, reason, value}` or a nested `{code, message}`. */
export type EdgeErrorCause =
  | { field: string; reason: string; value?: unknown }
  | { code: string; message: string };

/** Why a login was refused and whom it concerned, for authentication events; never sent to the client. */
export interface AuthenticationRefusal {
  readonly reason: string;
  readonly identityId?: string;
  readonly authenticatorId?: string;
  readonly signerId?: string;
}

export class EdgeError extends Error {
  /** Seconds the client should wait before trying again (a rate limit). */
  retryAfterSeconds?: number;
  /** The authentication challenge a client is answered with (which credentials would be accepted). */
  authenticateChallenge?: string;
  /** Why a login was refused and whom it concerned, for authentication events; never sent to the client. */
  refusal?: AuthenticationRefusal;
  constructor(
    readonly code: EdgeErrorCode,
    override readonly cause?: EdgeErrorCause,
    readonly internal?: unknown,
  ) {
    super(code);
    this.name = 'EdgeError';
  }

  static validation(field: string, reason: string, value?: unknown): EdgeError {
    return new EdgeError('COULD_NOT_VALIDATE', value === undefined ? { field, reason } : { field, reason, value });
  }

  static notFound(entity: string, id: string): EdgeError {
    return new EdgeError('NOT_FOUND', { code: 'UNHANDLED', message: `${entity} with id ${id} not found` });
  }

  withRefusal(refusal: AuthenticationRefusal): this {
    this.refusal = refusal;
    return this;
  }

  withRetryAfter(seconds: number): this {
    this.retryAfterSeconds = seconds;
    return this;
  }

  withChallenge(challenge: string): this {
    this.authenticateChallenge = challenge;
    return this;
  }
}
