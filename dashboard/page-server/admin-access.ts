// A controller session to read admin-only data with (the member list): the page's own, logged in with the
// configured credentials (`credentials.username` and the password file), or else that of the most recently active
// operator who logged in to the page. An OIDC session is refreshed before its access token expires, at the next
// controller that answers when its own does not. A token a controller refuses is dropped; a failed login is retried at
// most every 10 seconds, so a wrong password does not become a login flood.

import type { Logger } from '../../common/log/logger.ts';
import { loginAsAdmin, logoutAtController } from './controller-login.ts';
import { freshSession, sessionHeaders } from './controller-oidc.ts';
import { describeError, type HttpClient } from './http-client.ts';
import type { ControllerSession, PageSessions } from './page-sessions.ts';

export const loginRetryMs = 10_000;

/** `headers`: what a request on the session carries (Bearer for OIDC, zt-session for legacy). */
export type AdminToken = { readonly ok: true; readonly token: string; readonly headers: Record<string, string> } | { readonly ok: false; readonly error: string };

export interface AdminAccessOptions {
  readonly credentials?: { readonly username: string; readonly password: string };
  readonly sessions: PageSessions;
  readonly loginTimeoutMs: number;
  readonly now: () => number;
  readonly logger: Logger;
}

export class AdminAccess {
  private own: ControllerSession | undefined;
  private lastFailure: { at: number; error: string } | undefined;
  private loggingIn: Promise<AdminToken> | undefined;
  private readonly refreshing = new Map<string, Promise<{ ok: true; session: ControllerSession } | { ok: false; error: string }>>();

  constructor(
    private readonly http: HttpClient,
    private readonly options: AdminAccessOptions,
  ) {}

  /** A token, or why there is none. `origins`: where to log in, the leader first. */
  async token(origins: readonly string[]): Promise<AdminToken> {
    const credentials = this.options.credentials;
    if (!credentials) {
      const session = this.options.sessions.newestControllerSession();
      if (!session) return { ok: false, error: 'no administrator is logged in to the page, and no credentials are configured' };
      const fresh = await this.refreshed(session, origins);
      if (!fresh.ok) return fresh;
      if (fresh.session !== session) this.options.sessions.replaceControllerSession(session.token, fresh.session);
      return granted(fresh.session);
    }
    if (this.own) {
      const own = this.own;
      const fresh = await this.refreshed(own, origins);
      if (fresh.ok) {
        if (this.own === own) this.own = fresh.session;
        return granted(fresh.session);
      }
      if (this.own === own) return fresh; // no controller answered: keep the session for the next poll
      // refused (refused() forgot it): log in again below
    }
    if (this.lastFailure && this.options.now() - this.lastFailure.at < loginRetryMs) return { ok: false, error: this.lastFailure.error };
    this.loggingIn ??= this.login(credentials, origins).finally(() => (this.loggingIn = undefined));
    return this.loggingIn;
  }

  /** The controller refused this token (expired, removed): forget it. */
  refused(token: string): void {
    if (this.own?.token === token) this.own = undefined;
    this.options.sessions.dropControllerSession(token);
  }

  async close(timeoutMs: number): Promise<void> {
    const own = this.own;
    this.own = undefined;
    if (own) await logoutAtController(this.http, own, timeoutMs);
  }

  /**
   * The session refreshed when near its expiry; a refused refresh drops it, an unreachable cluster is an error. Callers
   * at the same moment share one refresh: a refresh token is good once.
   */
  private refreshed(session: ControllerSession, origins: readonly string[]): Promise<{ ok: true; session: ControllerSession } | { ok: false; error: string }> {
    let pending = this.refreshing.get(session.token);
    if (!pending) {
      pending = this.refresh(session, origins).finally(() => this.refreshing.delete(session.token));
      this.refreshing.set(session.token, pending);
    }
    return pending;
  }

  private async refresh(session: ControllerSession, origins: readonly string[]): Promise<{ ok: true; session: ControllerSession } | { ok: false; error: string }> {
    try {
      const fresh = await freshSession(this.http, session, origins, this.options.now, this.options.loginTimeoutMs);
      if (fresh === undefined) {
        this.options.logger.warn('management API session refresh refused', { controller: session.origin });
        this.refused(session.token);
        return { ok: false, error: 'the controller session could not be refreshed (refused): logging in again' };
      }
      if (fresh.origin !== session.origin) this.options.logger.warn('management API session moved to another controller', { from: session.origin, controller: fresh.origin });
      return { ok: true, session: fresh };
    } catch (error) {
      return { ok: false, error: describeError(error) };
    }
  }

  private async login(credentials: { username: string; password: string }, origins: readonly string[]): Promise<AdminToken> {
    const outcome = await loginAsAdmin(this.http, origins, credentials, this.options.loginTimeoutMs, this.options.now);
    if (outcome.ok) {
      this.own = { token: outcome.token, origin: outcome.origin, ...(outcome.oidc ? { oidc: outcome.oidc } : {}) };
      this.lastFailure = undefined;
      this.options.logger.info('logged in to the management API for the member list', { username: credentials.username, controller: outcome.origin, method: outcome.oidc ? 'oidc' : 'legacy' });
      return granted(this.own);
    }
    const error = `the configured credentials (${credentials.username}) were refused: ${outcome.message}`;
    if (this.lastFailure?.error !== error) this.options.logger.warn('management API login for the member list failed', { username: credentials.username, error: outcome.message });
    this.lastFailure = { at: this.options.now(), error };
    return { ok: false, error };
  }
}

const granted = (session: ControllerSession): AdminToken => ({ ok: true, token: session.token, headers: sessionHeaders(session) });
