// The status page's own login sessions: a random 256-bit id in an HttpOnly cookie, never the controller's token. The
// server keeps only the id's SHA-256, with the admin's name and, server-side, the controller session the login made
// (used to read admin-only data, such as the member list). A session ends at logout, after `idleTimeoutMs` without a
// request, or `ttlMs` after login; at most `maxSessions` are kept (the least recently used goes first). The clock and
// the random bytes are injected.

import { createHash, timingSafeEqual } from 'node:crypto';

export interface ControllerSession {
  /** The controller's zt-session token, or an OIDC session's access token (sent as Bearer): stays on this server. */
  readonly token: string;
  /** The controller origin it was made on (any controller of the cluster takes it). */
  readonly origin: string;
  /** An OIDC session: how to refresh its access token (controller-oidc.ts). */
  readonly oidc?: { readonly refreshToken: string; readonly expiresAtMs: number };
}

export interface PageSession {
  readonly username: string;
  readonly createdAt: number;
  lastSeenAt: number;
  readonly controller?: ControllerSession;
}

export interface PageSessionsOptions {
  readonly ttlMs: number;
  readonly idleTimeoutMs: number;
  readonly maxSessions: number;
  readonly now: () => number;
  readonly randomBytes: (size: number) => Buffer;
  /** Called once for every session that ends (logout, expiry, eviction), e.g. to end its controller session. */
  readonly onEnd?: (session: PageSession, reason: 'logout' | 'expired' | 'evicted') => void;
}

/** Bytes of a session id: 256 bits. */
export const sessionIdBytes = 32;

const digest = (id: string) => createHash('sha256').update(id, 'utf8').digest();

export class PageSessions {
  private readonly sessions = new Map<string, { hash: Buffer; session: PageSession }>();

  constructor(private readonly options: PageSessionsOptions) {}

  /** A new session; the returned id goes into the cookie and nowhere else. */
  create(username: string, controller?: ControllerSession): string {
    this.sweep();
    while (this.sessions.size >= this.options.maxSessions) this.evictLeastRecent();
    const id = this.options.randomBytes(sessionIdBytes).toString('base64url');
    const hash = digest(id);
    const now = this.options.now();
    this.sessions.set(hash.toString('hex'), { hash, session: { username, createdAt: now, lastSeenAt: now, ...(controller ? { controller } : {}) } });
    return id;
  }

  /** The live session for a cookie's id (and it counts as activity), or undefined. */
  lookup(id: string | undefined): PageSession | undefined {
    if (id === undefined || id.length === 0 || id.length > 128) return undefined;
    const hash = digest(id);
    const key = hash.toString('hex');
    const found = this.sessions.get(key);
    // The map is keyed by the digest, so the lookup itself learns nothing about a stored id; the comparison of the
    // digests is constant-time all the same.
    if (!found || !timingSafeEqual(found.hash, hash)) return undefined;
    if (this.expired(found.session)) {
      this.end(key, 'expired');
      return undefined;
    }
    found.session.lastSeenAt = this.options.now();
    return found.session;
  }

  /** Logout: the session ends at once. */
  logout(id: string | undefined): boolean {
    if (id === undefined) return false;
    const key = digest(id).toString('hex');
    if (!this.sessions.has(key)) return false;
    this.end(key, 'logout');
    return true;
  }

  /** Ends every expired session. */
  sweep(): void {
    for (const [key, { session }] of this.sessions) if (this.expired(session)) this.end(key, 'expired');
  }

  /** The controller session of the most recently active live session, if any has one. */
  newestControllerSession(): ControllerSession | undefined {
    let best: PageSession | undefined;
    for (const { session } of this.sessions.values()) {
      if (session.controller && !this.expired(session) && (!best || session.lastSeenAt > best.lastSeenAt)) best = session;
    }
    return best?.controller;
  }

  /** Puts a refreshed controller session in the place of the one whose token was `token`. */
  replaceControllerSession(token: string, next: ControllerSession): void {
    for (const entry of this.sessions.values()) if (entry.session.controller?.token === token) entry.session = { ...entry.session, controller: next };
  }

  /** Forgets a controller token the controller no longer takes (the page sessions stay). */
  dropControllerSession(token: string): void {
    for (const entry of this.sessions.values()) {
      if (entry.session.controller?.token === token) {
        const { controller: _dropped, ...rest } = entry.session;
        entry.session = rest;
      }
    }
  }

  /** How long a cookie may live: the absolute limit. */
  get maxAgeSeconds(): number {
    return Math.floor(this.options.ttlMs / 1000);
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Ends them all (the server is stopping). */
  endAll(): void {
    for (const key of [...this.sessions.keys()]) this.end(key, 'logout');
  }

  private expired(session: PageSession): boolean {
    const now = this.options.now();
    return now - session.createdAt >= this.options.ttlMs || now - session.lastSeenAt >= this.options.idleTimeoutMs;
  }

  private evictLeastRecent(): void {
    let oldest: [string, PageSession] | undefined;
    for (const [key, { session }] of this.sessions) if (!oldest || session.lastSeenAt < oldest[1].lastSeenAt) oldest = [key, session];
    if (oldest) this.end(oldest[0], 'evicted');
  }

  private end(key: string, reason: 'logout' | 'expired' | 'evicted'): void {
    const found = this.sessions.get(key);
    if (!found) return;
    this.sessions.delete(key);
    this.options.onEnd?.(found.session, reason);
  }
}
