// Posture responses: what a client reports of its device (OS, MAC addresses, domain, processes) and of its endpoint
// (woken, unlocked), kept on its API session by one replicated command per request (posture-data.ts), so every
// controller judges the session on the same data: a client that moves to another controller needs not report again.
// A process response names the PROCESS or PROCESS_MULTI check it answers. Answers which services' MFA timers a wake
// or an unlock shortened, as the real controller does.
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import type { ApiSession } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { PostureUpdate } from '../model/posture-data.ts';
import type { RoleHolder } from '../model/policy-roles.ts';
import type { PostureCheck } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import type { ModelWriter } from './model-writer.ts';
import { evaluateCheck } from './posture-evaluation.ts';
import type { ServiceAccessService } from './service-access-service.ts';

/** One posture response as the client API takes it (client.yml postureResponse*Create), already schema-checked. */
export type PostureResponseBody =
  | { readonly typeId: 'OS'; readonly id: string; readonly type: string; readonly version: string; readonly build?: string | null }
  | { readonly typeId: 'MAC'; readonly id: string; readonly macAddresses: readonly string[] }
  | { readonly typeId: 'DOMAIN'; readonly id: string; readonly domain: string }
  | { readonly typeId: 'PROCESS'; readonly id: string; readonly path?: string | null; readonly isRunning?: boolean | null; readonly hash?: string | null; readonly signerFingerprints?: readonly string[] | null }
  | { readonly typeId: 'ENDPOINT_STATE'; readonly id: string; readonly woken?: boolean | null; readonly unlocked?: boolean | null };

/** A service whose MFA posture timer a response changed (client.yml postureResponseService). */
export interface PostureTimerChange {
  readonly id: string;
  readonly name: string;
  readonly postureQueryType: string;
  readonly timeout: number;
  readonly timeoutRemaining: number;
}

export class PostureResponseService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly access: ServiceAccessService,
    private readonly clock: Clock,
  ) {}

  /** Keeps the responses on the session; refuses them all (changing nothing) when any is invalid. */
  async submit(session: ApiSession, identity: RoleHolder, responses: readonly PostureResponseBody[]): Promise<PostureTimerChange[]> {
    const updates = responses.map((response, index) => this.updateFor(response, responses.length > 1 ? `[${index}].` : ''));
    if (updates.length > 0) await this.writer.write({ type: 'apiSession.posture', id: session.id, at: isoTime(this.clock.now()), updates });
    const prompted = responses.some((response) => response.typeId === 'ENDPOINT_STATE' && (response.woken || response.unlocked));
    return prompted ? this.mfaTimers(session.id, identity) : [];
  }

  private updateFor(response: PostureResponseBody, field: string): PostureUpdate {
    switch (response.typeId) {
      case 'OS': return { kind: 'os', type: response.type, version: response.version, build: response.build ?? '' };
      case 'MAC': return { kind: 'mac', addresses: [...response.macAddresses] };
      case 'DOMAIN': return { kind: 'domain', domain: response.domain };
      case 'ENDPOINT_STATE': return { kind: 'endpointState', woken: response.woken === true, unlocked: response.unlocked === true };
      case 'PROCESS': {
        const check = this.store.table<PostureCheck>(serviceTables.postureChecks).get(response.id);
        if (!check || (check.typeId !== 'PROCESS' && check.typeId !== 'PROCESS_MULTI')) {
          throw EdgeError.validation(`${field}id`, 'a process response must name the PROCESS or PROCESS_MULTI posture check it answers', response.id);
        }
        // A PROCESS check has one path; a PROCESS_MULTI response says which of its paths it is about.
        const path = response.path ?? (check.typeId === 'PROCESS' ? check.process?.path : undefined);
        if (!path) throw EdgeError.validation(`${field}path`, 'a process response to a PROCESS_MULTI check must give the path it reports on');
        return { kind: 'process', postureCheckId: check.id, path, isRunning: response.isRunning === true, binaryHash: response.hash ?? '', signerFingerprints: [...(response.signerFingerprints ?? [])] };
      }
    }
  }

  /** The services guarded by an MFA check that prompts on wake or unlock, with their timers now. */
  private mfaTimers(sessionId: string, identity: RoleHolder): PostureTimerChange[] {
    const session = this.store.table<ApiSession>(tables.apiSessions).get(sessionId);
    if (!session) return [];
    const now = this.clock.now();
    const changes: PostureTimerChange[] = [];
    for (const access of this.access.accessFor(identity).values()) {
      const checks = new Map(access.grants.flatMap((grant) => grant.checks).filter((check) => check.typeId === 'MFA' && (check.promptOnWake || check.promptOnUnlock)).map((check) => [check.id, check]));
      for (const check of checks.values()) {
        const result = evaluateCheck(check, session, now);
        changes.push({ id: access.service.id, name: access.service.name, postureQueryType: 'MFA', timeout: result.timeout, timeoutRemaining: result.timeoutRemaining });
      }
    }
    return changes;
  }
}
