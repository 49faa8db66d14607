// What a client has reported of its device (posture responses), kept on its API session: replicated through the raft
// log with the session, so a client that moves to another controller is judged on the same data, and gone when the
// session ends. Each kind of response replaces the previous one of its kind; a process response replaces the one
// for the same posture check and path. Pure: the merge takes the time as a parameter.

export interface PostureOs {
  readonly type: string;
  readonly version: string;
  readonly build: string;
  readonly lastUpdatedAt: string;
}

export interface PostureMac {
  readonly addresses: readonly string[];
  readonly lastUpdatedAt: string;
}

export interface PostureDomain {
  readonly domain: string;
  readonly lastUpdatedAt: string;
}

export interface PostureProcess {
  /** The PROCESS or PROCESS_MULTI check the response answered. */
  readonly postureCheckId: string;
  readonly path: string;
  readonly isRunning: boolean;
  readonly binaryHash: string;
  readonly signerFingerprints: readonly string[];
  readonly lastUpdatedAt: string;
}

export interface PostureEndpointState {
  readonly wokenAt: string | null;
  readonly unlockedAt: string | null;
}

export interface PostureData {
  readonly os?: PostureOs;
  readonly mac?: PostureMac;
  readonly domain?: PostureDomain;
  readonly processes?: readonly PostureProcess[];
  readonly endpointState?: PostureEndpointState;
}

/** One validated posture response, as the command carries it (the time is the command's). */
export type PostureUpdate =
  | { readonly kind: 'os'; readonly type: string; readonly version: string; readonly build: string }
  | { readonly kind: 'mac'; readonly addresses: readonly string[] }
  | { readonly kind: 'domain'; readonly domain: string }
  | { readonly kind: 'process'; readonly postureCheckId: string; readonly path: string; readonly isRunning: boolean; readonly binaryHash: string; readonly signerFingerprints: readonly string[] }
  | { readonly kind: 'endpointState'; readonly woken: boolean; readonly unlocked: boolean };

/** At most this many process responses are kept per API session (the newest win): a client cannot grow it unbounded. */
export const maxProcessesPerSession = 256;

export function mergePostureUpdates(current: PostureData | undefined, updates: readonly PostureUpdate[], at: string): PostureData {
  let data: PostureData = current ?? {};
  for (const update of updates) {
    switch (update.kind) {
      case 'os':
        data = { ...data, os: { type: update.type, version: update.version, build: update.build, lastUpdatedAt: at } };
        break;
      case 'mac':
        data = { ...data, mac: { addresses: [...update.addresses], lastUpdatedAt: at } };
        break;
      case 'domain':
        data = { ...data, domain: { domain: update.domain, lastUpdatedAt: at } };
        break;
      case 'process': {
        const others = (data.processes ?? []).filter((process) => !(process.postureCheckId === update.postureCheckId && process.path === update.path));
        const { kind: _kind, ...fields } = update;
        data = { ...data, processes: [...others, { ...fields, signerFingerprints: [...fields.signerFingerprints], lastUpdatedAt: at }].slice(-maxProcessesPerSession) };
        break;
      }
      case 'endpointState': {
        // Only a wake or an unlock moves its moment; a report of neither changes nothing.
        const state = data.endpointState ?? { wokenAt: null, unlockedAt: null };
        data = { ...data, endpointState: { wokenAt: update.woken ? at : state.wokenAt, unlockedAt: update.unlocked ? at : state.unlockedAt } };
        break;
      }
    }
  }
  return data;
}
