// Whether an API session passes the posture checks guarding a service, and so whether it may open a session to it.
// An MFA check passes when the session has answered an MFA challenge and, for a check with a timeout, did so less
// than timeoutSeconds ago; with promptOnWake/promptOnUnlock, a wake or unlock after that answer leaves a grace period
// (5 minutes) to answer again. The other types judge the device data the client reported (device-posture-checks.ts).
// Pure: the time is a parameter.
import type { PostureData } from '../model/posture-data.ts';
import type { PostureCheck, ServicePolicyType } from '../model/service-entities.ts';
import { passesDeviceCheck } from './device-posture-checks.ts';
import type { PolicyGrant, ServiceAccess } from './service-access.ts';

/** What the checks look at of an API session. */
export interface PostureState {
  readonly isMfaComplete: boolean;
  readonly mfaCompletedAt?: string | null;
  /** The device data and endpoint state the client reported. */
  readonly postureData?: PostureData;
}

/** After a wake or an unlock, an MFA check with promptOnWake/promptOnUnlock keeps passing this long (5 minutes). */
export const mfaPromptGraceSeconds = 300;

/** The real controller's value for "no timeout", in both `timeout` and `timeoutRemaining`. */
export const noTimeout = -1;

export interface CheckResult {
  readonly check: PostureCheck;
  readonly isPassing: boolean;
  /** Seconds, or -1 for no timeout. */
  readonly timeout: number;
  /** Seconds left before the MFA answer times out: -1 without a timeout, 0 when there is no answer (or it expired). */
  readonly timeoutRemaining: number;
}

export interface GrantResult {
  readonly grant: PolicyGrant;
  /** True when every check passes; a policy without checks passes. */
  readonly isPassing: boolean;
  readonly checks: readonly CheckResult[];
}

export function evaluateCheck(check: PostureCheck, state: PostureState, nowMs: number): CheckResult {
  if (check.typeId !== 'MFA') return { check, isPassing: passesDeviceCheck(check, state.postureData), timeout: noTimeout, timeoutRemaining: noTimeout };
  const timeout = check.timeoutSeconds > 0 ? check.timeoutSeconds : noTimeout;
  const failed = { check, isPassing: false, timeout, timeoutRemaining: timeout === noTimeout ? noTimeout : 0 };
  if (!state.isMfaComplete) return failed;
  // Without the moment of the answer its age is unknown, so a check with a timeout or a wake/unlock prompt cannot pass.
  const answeredAt = state.mfaCompletedAt ? Date.parse(state.mfaCompletedAt) : Number.NaN;
  const needsAnswerTime = timeout !== noTimeout || check.promptOnWake || check.promptOnUnlock;
  if (Number.isNaN(answeredAt)) return needsAnswerTime ? failed : { check, isPassing: true, timeout, timeoutRemaining: noTimeout };
  const elapsedMs = nowMs - answeredAt;
  if (timeout !== noTimeout && elapsedMs >= timeout * 1000) return failed;
  // A wake or unlock after the answer leaves the grace period to answer again; one before it changes nothing.
  const endpoint = state.postureData?.endpointState;
  let graceLeft = Number.POSITIVE_INFINITY;
  for (const [prompts, at] of [[check.promptOnWake, endpoint?.wokenAt], [check.promptOnUnlock, endpoint?.unlockedAt]] as const) {
    const eventAt = prompts && at ? Date.parse(at) : Number.NaN;
    if (Number.isNaN(eventAt) || eventAt <= answeredAt) continue;
    const leftMs = eventAt + mfaPromptGraceSeconds * 1000 - nowMs;
    if (leftMs <= 0) return failed;
    graceLeft = Math.min(graceLeft, Math.floor(leftMs / 1000));
  }
  if (timeout === noTimeout) return { check, isPassing: true, timeout, timeoutRemaining: noTimeout };
  const remaining = Math.max(0, timeout - Math.floor(elapsedMs / 1000));
  return { check, isPassing: true, timeout, timeoutRemaining: Math.min(remaining, graceLeft) };
}

export function evaluateGrant(grant: PolicyGrant, state: PostureState, nowMs: number): GrantResult {
  const checks = grant.checks.map((check) => evaluateCheck(check, state, nowMs));
  return { grant, isPassing: checks.every((result) => result.isPassing), checks };
}

export type SessionDecision =
  | { readonly allowed: true; readonly passingPolicyIds: readonly string[] }
  /** `hidden`: no policy grants the service at all; `not-granted`: none grants this type; `posture`: every granting policy fails. */
  | { readonly allowed: false; readonly reason: 'hidden' | 'not-granted' | 'posture'; readonly failing: readonly GrantResult[] };

/** May this API session open a `type` session to the service? At least one granting policy must pass its checks. */
export function decideSession(access: ServiceAccess | undefined, type: ServicePolicyType, state: PostureState, nowMs: number): SessionDecision {
  if (!access) return { allowed: false, reason: 'hidden', failing: [] };
  const results = access.grants.filter((grant) => grant.policy.type === type).map((grant) => evaluateGrant(grant, state, nowMs));
  if (results.length === 0) return { allowed: false, reason: 'not-granted', failing: [] };
  const passing = results.filter((result) => result.isPassing);
  if (passing.length === 0) return { allowed: false, reason: 'posture', failing: results };
  return { allowed: true, passingPolicyIds: passing.map((result) => result.grant.policy.id) };
}
