// An identity's posture data (management.yml postureData): the newest OS, MAC and domain any of its live API sessions
// reported, every process response, and per session its MFA and endpoint state. A time never reported is the zero
// time `0001-01-01T00:00:00.000Z`, as the real controller shows it (the spec requires the fields).
import { mfaPromptGraceSeconds } from '../../edge/posture-evaluation.ts';
import type { ApiSession } from '../../model/entities.ts';
import type { PostureData, PostureProcess } from '../../model/posture-data.ts';

const zeroTime = '0001-01-01T00:00:00.000Z';
const base = (lastUpdatedAt: string | undefined) => ({ postureCheckId: '', timedOut: false, lastUpdatedAt: lastUpdatedAt ?? zeroTime });

function newest<K extends 'os' | 'mac' | 'domain'>(sessions: readonly ApiSession[], key: K): PostureData[K] | undefined {
  let found: PostureData[K] | undefined;
  for (const session of sessions) {
    const value = session.postureData?.[key];
    if (value && (!found || value.lastUpdatedAt > found.lastUpdatedAt)) found = value;
  }
  return found;
}

export function postureDataView(sessions: readonly ApiSession[], nowMs: number) {
  const os = newest(sessions, 'os');
  const mac = newest(sessions, 'mac');
  const domain = newest(sessions, 'domain');
  const processes = new Map<string, PostureProcess>();
  for (const session of sessions) {
    for (const process of session.postureData?.processes ?? []) {
      const key = `${process.postureCheckId}\u0000${process.path}`;
      const known = processes.get(key);
      if (!known || process.lastUpdatedAt > known.lastUpdatedAt) processes.set(key, process);
    }
  }
  return {
    os: { ...base(os?.lastUpdatedAt), type: os?.type ?? '', version: os?.version ?? '', build: os?.build ?? '' },
    mac: { ...base(mac?.lastUpdatedAt), addresses: mac?.addresses ?? [] },
    domain: { ...base(domain?.lastUpdatedAt), domain: domain?.domain ?? '' },
    processes: [...processes.values()].map((process) => ({
      postureCheckId: process.postureCheckId,
      timedOut: false,
      lastUpdatedAt: process.lastUpdatedAt,
      path: process.path,
      isRunning: process.isRunning,
      binaryHash: process.binaryHash,
      signerFingerprints: process.signerFingerprints,
    })),
    apiSessionPostureData: Object.fromEntries(sessions.map((session) => [session.id, sessionData(session, nowMs)])),
  };
}

function sessionData(session: ApiSession, nowMs: number) {
  const passedAt = session.isMfaComplete ? session.mfaCompletedAt ?? null : null;
  const state = session.postureData?.endpointState;
  // Passed on wake (unlock): no wake after the MFA answer, or one less than the grace period ago.
  const passedAfter = (eventAt: string | null | undefined) => {
    if (!session.isMfaComplete) return false;
    const event = eventAt ? Date.parse(eventAt) : Number.NaN;
    const answered = passedAt ? Date.parse(passedAt) : Number.NaN;
    if (Number.isNaN(event) || (!Number.isNaN(answered) && event <= answered)) return true;
    return nowMs < event + mfaPromptGraceSeconds * 1000;
  };
  return {
    mfa: { apiSessionId: session.id, passedMfa: session.isMfaComplete, passedAt: passedAt ?? zeroTime, passedOnWake: passedAfter(state?.wokenAt), passedOnUnlock: passedAfter(state?.unlockedAt) },
    endpointState: { wokenAt: state?.wokenAt ?? zeroTime, unlockedAt: state?.unlockedAt ?? zeroTime },
  };
}
