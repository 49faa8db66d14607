// The errors the SDK hands its caller: one base class, so that nothing a controller or router sends escapes as an
// untyped throw. Each names what failed in words a log can carry; the fields say what a program acts on.

export type EdgeSdkErrorKind =
  /** The identity file cannot be read or is not OpenZiti's format. */
  | 'identity-file'
  /** The controller answered an error, or could not be reached. */
  | 'controller'
  /** The identity may not dial (or bind) a service of that name, or it does not exist. */
  | 'no-such-service'
  /** No edge router of the session could be reached or said hello. */
  | 'router-unreachable'
  /** A router refused a Connect (or Bind): see DialRefusedError. */
  | 'refused'
  /** A wait ran out. */
  | 'timeout'
  /** The channel or connection closed before the answer came. */
  | 'closed'
  /** A router sent something the protocol does not allow. */
  | 'protocol';

export class EdgeSdkError extends Error {
  constructor(
    readonly kind: EdgeSdkErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EdgeSdkError';
  }
}

/** A non-2xx answer of the Edge Client API (or none at all: `status` 0), with the envelope's error code. */
export class ControllerApiError extends EdgeSdkError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('controller', message, options);
    this.name = 'ControllerApiError';
  }
}

/** A router refused a Connect or a Bind: the edge error code (header 1014) and retry hint SDKs act on, and the router's text. */
export class DialRefusedError extends EdgeSdkError {
  constructor(
    readonly service: string,
    /** The edge error code (0 when the router sent none: a plain-text refusal). */
    readonly edgeCode: number,
    /** 0 default, 1 too busy, 2 start over, 3 not retriable. */
    readonly retryHint: number,
    readonly reason: string,
    /** What was refused: a Connect (dial) or a Bind. */
    readonly operation: 'dial' | 'bind' = 'dial',
  ) {
    super('refused', `${operation} of service ${JSON.stringify(service)} refused (edge code ${edgeCode}, retry hint ${retryHint}): ${reason}`);
    this.name = 'DialRefusedError';
  }
}
