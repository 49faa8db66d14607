// API sessions: issued at login, resolved from the zt-session token on every request, ended by logout,
// administrative removal or inactivity. Activity is kept in memory and flushed as one batched command per interval,
// never a command per request; expired sessions are refused at once and swept in one command.
import type { Clock } from '../../common/time/clock.ts';
import type { ApiSession, Identity } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { hashToken, newEntityId, newSessionToken } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { isoTime } from '../../common/time/iso-time.ts';

export interface SessionSettings {
  /** Inactivity timeout in milliseconds (edge.api.sessionTimeout). */
  readonly timeoutMs: number;
  /** At most this many sessions' activity per flush command. */
  readonly activityBatchSize: number;
}

/** What a login knows when it opens a session; ids, token and timestamps are chosen here. */
export type NewSession = Pick<ApiSession, 'authenticatorId' | 'authMethod' | 'ipAddress' | 'configTypes' | 'authQueries' | 'isMfaRequired'> & {
  readonly identity: Identity;
};

export class ApiSessionService {
  /** sessionId → last activity (ms) not yet flushed to the model. */
  private readonly activity = new Map<string, number>();
  /** Parsed lastActivityAt of each stored row (rows are immutable: a new row replaces the old). */
  private readonly parsedActivity = new WeakMap<ApiSession, number>();

  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly settings: SessionSettings,
  ) {}

  get timeoutMs(): number {
    return this.settings.timeoutMs;
  }

  now(): number {
    return this.clock.now();
  }

  async create(input: NewSession): Promise<{ session: ApiSession; token: string }> {
    const token = newSessionToken();
    const at = isoTime(this.clock.now());
    const session: ApiSession = {
      id: newEntityId(),
      createdAt: at,
      updatedAt: at,
      tags: {},
      tokenHash: hashToken(token),
      identityId: input.identity.id,
      authenticatorId: input.authenticatorId,
      authMethod: input.authMethod,
      ipAddress: input.ipAddress,
      configTypes: [...input.configTypes],
      authQueries: [...input.authQueries],
      isMfaRequired: input.isMfaRequired,
      isMfaComplete: false,
      lastActivityAt: at,
    };
    await this.writer.write({ type: 'apiSession.create', session });
    return { session: this.store.table<ApiSession>(tables.apiSessions).get(session.id) ?? session, token };
  }

  /** Writes a session a login did not write (an OIDC session: oidc-sessions.ts) and answers the stored row. */
  async record(session: ApiSession): Promise<ApiSession> {
    await this.writer.write({ type: 'apiSession.create', session });
    return this.store.table<ApiSession>(tables.apiSessions).get(session.id) ?? session;
  }

  /** A secondary factor was answered: the session loses that auth query (and is full once none is left). */
  async satisfyQuery(session: ApiSession, typeId: string): Promise<ApiSession> {
    if (!session.authQueries.some((query) => query.typeId === typeId)) return session;
    await this.writer.write({ type: 'apiSession.satisfyQuery', id: session.id, typeId });
    return this.store.table<ApiSession>(tables.apiSessions).get(session.id) ?? session;
  }

  /** The live session a token names, or undefined when unknown or expired (an expired one is swept later). */
  resolve(token: string): ApiSession | undefined {
    const found = this.lookup(token);
    return found.state === 'live' ? found.session : undefined;
  }

  lookup(token: string): { state: 'live'; session: ApiSession } | { state: 'expired' | 'unknown' } {
    const session = this.store.table<ApiSession>(tables.apiSessions).findUnique('tokenHash', hashToken(token));
    if (!session) return { state: 'unknown' };
    return this.isExpired(session) ? { state: 'expired' } : { state: 'live', session };
  }

  get(id: string): ApiSession | undefined {
    return this.store.table<ApiSession>(tables.apiSessions).get(id);
  }

  list(): ApiSession[] {
    return this.store.table<ApiSession>(tables.apiSessions).all();
  }

  /** Records activity in memory only; it reaches the model with the next flush. */
  touch(session: ApiSession): void {
    this.activity.set(session.id, this.clock.now());
  }

  /** Records activity now for these sessions (those still stored), as a request would: an edge connection held. */
  touchIds(ids: readonly string[]): void {
    const table = this.store.table<ApiSession>(tables.apiSessions);
    for (const id of ids) if (table.get(id)) this.activity.set(id, this.clock.now());
  }

  lastActivityMs(session: ApiSession): number {
    const stored = this.storedActivityMs(session);
    const recent = this.activity.get(session.id);
    return recent !== undefined && recent > stored ? recent : stored;
  }

  private storedActivityMs(session: ApiSession): number {
    let parsed = this.parsedActivity.get(session);
    if (parsed === undefined) this.parsedActivity.set(session, (parsed = Date.parse(session.lastActivityAt)));
    return parsed;
  }

  expiresAtMs(session: ApiSession): number {
    return this.lastActivityMs(session) + this.settings.timeoutMs;
  }

  isExpired(session: ApiSession): boolean {
    return this.clock.now() >= this.expiresAtMs(session);
  }

  async end(ids: readonly string[], reason: 'logout' | 'administrative' | 'expired'): Promise<void> {
    if (ids.length === 0) return;
    await this.writer.write({ type: 'apiSession.delete', ids: [...ids], reason });
    for (const id of ids) this.activity.delete(id);
  }

  /** Writes pending activity as one command per batch; returns how many sessions it covered. */
  async flushActivity(): Promise<number> {
    if (this.activity.size === 0) return 0;
    const pending = [...this.activity.entries()];
    this.activity.clear();
    let written = 0;
    for (let start = 0; start < pending.length; start += this.settings.activityBatchSize) {
      const chunk = pending.slice(start, start + this.settings.activityBatchSize);
      try {
        await this.writer.write({ type: 'apiSession.touch', activity: chunk.map(([id, ms]) => [id, new Date(ms).toISOString()]) });
        written += chunk.length;
      } catch (error) {
        // Keep what could not be written (newer activity wins) so the next flush carries it.
        for (const [id, ms] of chunk) if ((this.activity.get(id) ?? 0) < ms) this.activity.set(id, ms);
        throw error;
      }
    }
    return written;
  }

  /** Ends every expired session in one command; returns how many. */
  async sweepExpired(): Promise<number> {
    const expired = this.list().filter((session) => this.isExpired(session)).map((session) => session.id);
    await this.end(expired, 'expired');
    return expired.length;
  }
}
