// How the domain's errors look over HTTP, in one place: each code's status and client-safe message, and the
// response headers an error carries. The error type itself lives in the domain (server/edge/edge-error.ts).
import type { EdgeError, EdgeErrorCode } from '../edge/edge-error.ts';

export const apiErrorCodes: { readonly [code in EdgeErrorCode]: { readonly status: number; readonly message: string } } = {
  COULD_NOT_VALIDATE: { status: 400, message: 'The supplied request contains an invalid document or no valid accept content were available, see cause' },
  COULD_NOT_PARSE_BODY: { status: 400, message: 'The body of the request could not be parsed' },
  INVALID_AUTH_METHOD: { status: 400, message: 'The supplied authentication method is not valid' },
  MFA_INVALID_TOKEN: { status: 400, message: 'The token provided was invalid' },
  INVALID_FIELD: { status: 400, message: 'The field contains an invalid value' },
  INVALID_FILTER: { status: 400, message: 'The filter query supplied is invalid' },
  INVALID_PAGINATION: { status: 400, message: 'The pagination properties provided are invalid' },
  INVALID_SORT_IDENTIFIER: { status: 400, message: 'The sort identifier supplied is invalid' },
  INVALID_ENROLLMENT_TOKEN: { status: 400, message: 'The supplied token is not valid' },
  COULD_NOT_PROCESS_CSR: { status: 400, message: 'The supplied certificate signing request could not be processed' },
  INVALID_COMMON_NAME: { status: 400, message: 'The common name of the supplied certificate is invalid' },
  CERTIFICATE_FAILED_VALIDATION: { status: 400, message: 'The supplied certificate failed validation' },
  EXPECTED_PEM_CERTIFICATE: { status: 400, message: 'The supplied body was not a PEM encoded certificate' },
  COULD_NOT_PARSE_DER_BLOCK: { status: 400, message: 'A DER block of the supplied PEM could not be parsed' },
  ENTITY_CAN_NOT_BE_DELETED: { status: 400, message: 'The entity requested for delete can not be deleted' },
  UNAUTHORIZED: { status: 401, message: 'The request could not be completed. The session is not authorized or the credentials are invalid' },
  INVALID_AUTH: { status: 401, message: 'The authentication request failed' },
  NOT_FOUND: { status: 404, message: 'The resource requested was not found or is no longer available' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'The resource requested does not support this HTTP verb' },
  NOT_ACCEPTABLE: { status: 406, message: 'The requested content type is not available' },
  MFA_EXISTS: { status: 409, message: 'An MFA record already exists for this identity' },
  MFA_NOT_ENROLLED: { status: 409, message: 'The identity is not enrolled in MFA' },
  CAN_NOT_DELETE_REFERENCED_ENTITY: { status: 409, message: 'Referenced entities can not be deleted' },
  CA_ALREADY_VERIFIED: { status: 409, message: 'The CA has already been verified' },
  ENROLLMENT_EXISTS: { status: 409, message: 'An enrollment of this method already exists for the identity' },
  CAN_NOT_UPDATE_AUTHENTICATOR: { status: 409, message: 'The authenticator cannot be updated in this manner' },
  INVALID_POSTURE: { status: 409, message: 'Posture response data is missing or wrong' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than the allowed maximum' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The content type of the request body is not supported' },
  SERVER_TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests to alter state have been issued. Please slow your request rate or try again later.' },
  RATE_LIMITED: { status: 429, message: 'The resource is rate limited and the rate limit has been exceeded. Please try again later' },
  UNHANDLED: { status: 500, message: 'An unhandled error occurred' },
  TIMEOUT: { status: 503, message: 'The request timed out' },
  CLUSTER_NO_LEADER: { status: 503, message: 'ClusterHasNoLeaderError: the cluster has no leader, the command could not be executed' },
  CLUSTER_READ_ONLY: { status: 503, message: 'unable to execute command. In a readonly state: different versions detected in cluster' },
  CONTROLLER_UNAVAILABLE: { status: 503, message: 'This controller stopped after a failure and is restarting; use another controller or retry shortly' },
  SNAPSHOT_FAILED: { status: 503, message: 'The snapshot could not be written; see the cause and the controller log' },
};

/** The HTTP status an error of this code is answered with. */
export const httpStatusOf = (error: Pick<EdgeError, 'code'>): number => apiErrorCodes[error.code].status;

/** The client-safe message of an error's code. */
export const clientMessageOf = (error: Pick<EdgeError, 'code'>): string => apiErrorCodes[error.code].message;

/** The response headers that belong to an error: Retry-After for a rate limit, WWW-Authenticate for a challenge. */
export function responseHeadersOf(error: EdgeError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  if (error.authenticateChallenge !== undefined) headers['WWW-Authenticate'] = error.authenticateChallenge;
  return headers;
}
