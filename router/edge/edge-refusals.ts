// How a refused dial reads to an SDK: the controller's (or the router's) refusal code as the edge error code and
// retry hint OpenZiti's routers send, in StateClosed's 1014 header and 1033 structured error. SDKs act on them: the
// Go SDK maps 14 to access denied, 15 to posture failed, 2-5 to an invalid session (start over), 6 to a service
// that is not available; host listeners give up on hint 3 and start over on 2.
import { edgeErrorCode, retryHint } from '../../common/edge-protocol/edge-headers.ts';

export interface EdgeRefusal {
  readonly code: number;
  readonly retryHint: number;
  readonly message: string;
}

export function edgeRefusalOf(refusalCode: string, message: string): EdgeRefusal {
  switch (refusalCode) {
    case 'INVALID_SESSION':
      return { code: edgeErrorCode.invalidSession, retryHint: retryHint.startOver, message: message.startsWith('invalid session') ? message : `invalid session: ${message}` };
    case 'SERVICE_NOT_FOUND':
      return { code: edgeErrorCode.invalidService, retryHint: retryHint.notRetriable, message: `service not found: ${message}` };
    case 'NO_DIAL_POLICY':
      return { code: edgeErrorCode.accessDenied, retryHint: retryHint.notRetriable, message };
    case 'NO_BIND_POLICY':
      // As the real router closes a listener whose bind access is gone: access denied, start over.
      return { code: edgeErrorCode.accessDenied, retryHint: retryHint.startOver, message };
    case 'INVALID_POSTURE':
      return { code: edgeErrorCode.postureCheckFailed, retryHint: retryHint.default, message };
    case 'NO_EDGE_ROUTER_POLICY':
    case 'NO_SERVICE_EDGE_ROUTER_POLICY':
      return { code: edgeErrorCode.invalidEdgeRouterForSession, retryHint: retryHint.startOver, message };
    case 'ENCRYPTION_DATA_MISSING':
      return { code: edgeErrorCode.encryptionDataMissing, retryHint: retryHint.startOver, message };
    case 'CIRCUIT_LIMIT':
    case 'IDENTITY_CIRCUIT_LIMIT':
    case 'CONTROLLER_UNAVAILABLE':
      return { code: edgeErrorCode.internal, retryHint: retryHint.tooBusy, message };
    default:
      // No terminators, no path, a failed setup: OpenZiti wraps these as Internal with the default hint.
      return { code: edgeErrorCode.internal, retryHint: retryHint.default, message };
  }
}
