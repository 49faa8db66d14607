// The failures an `edgeward edge` command ends with (besides usage errors, see edge-args.ts). Each is printed on
// stderr and ends the command with exit code 1.

/** A failure on this side: no session, an unreachable or untrusted controller, a name that matches nothing. */
export class EdgeFailure extends Error {
  constructor(
    message: string,
    /** Further lines, printed indented under the message. */
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}

/** The controller did not answer at all (refused, reset, timed out): another controller of the cluster may. */
export class UnreachableFailure extends EdgeFailure {}

/** The `cause` member of the API's error envelope: a field error or a nested error. */
export interface ApiErrorCause {
  readonly field?: string;
  readonly reason?: string;
  readonly value?: unknown;
  readonly code?: string;
  readonly message?: string;
}

/** The controller answered with its error envelope: `{"error": {code, message, requestId, cause}}`. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly apiMessage: string,
    readonly requestId: string | undefined,
    readonly apiCause: ApiErrorCause | undefined,
    /** The `WWW-Authenticate` header of a 401, which says whether the session token is missing, invalid or expired. */
    readonly challenge: string | undefined,
  ) {
    super(`${code}: ${apiMessage}`);
  }

  /** `missing`, `invalid` or `expired` when a 401 refused the session token (legacy or OIDC Bearer) itself; undefined otherwise. */
  get sessionProblem(): 'missing' | 'invalid' | 'expired' | undefined {
    if (this.status !== 401 || !this.challenge) return undefined;
    const match = /(?:zt-session realm="zt-session"|Bearer realm="openziti-oidc") error="(missing|invalid|expired)"/.exec(this.challenge);
    return match ? (match[1] as 'missing' | 'invalid' | 'expired') : undefined;
  }
}
