// A controller session to read admin-only data with (the member list): the page's own, logged in with the
// configured credentials (`credentials.username` and the password file), or else that of the most recently active
// operator who logged in to the page. A token a controller refuses is dropped; a failed login is retried at most every
// 10 seconds, so a wrong password does not become a login flood.

import type { Logger } from '../../common/log/logger.ts';
import { loginAsAdmin, logoutAtController } from './controller-login.ts';
import type { HttpClient } from './http-client.ts';
import type { PageSessions } from './page-sessions.ts';

export const loginRetryMs = 10_000;

export type AdminToken = { readonly ok: true; readonly token: string } | { readonly ok: false; readonly error: string };

export interface AdminAccessOptions {
  readonly credentials?: { readonly username: string; readonly password: string };
  readonly sessions: PageSessions;
  readonly loginTimeoutMs: number;
  readonly now: () => number;
  readonly logger: Logger;
}

export class AdminAccess {
  private own: { token: string; origin: string } | undefined;
  private lastFailure: { at: number; error: string } | undefined;
  private loggingIn: Promise<AdminToken> | undefined;

  constructor(
    private readonly http: HttpClient,
    private readonly options: AdminAccessOptions,
  ) {}

  /** A token, or why there is none. `origins`: where to log in, the leader first. */
  async token(origins: readonly string[]): Promise<AdminToken> {
    const credentials = this.options.credentials;
    if (!credentials) {
      const session = this.options.sessions.newestControllerSession();
      return session ? { ok: true, token: session.token } : { ok: false, error: 'no administrator is logged in to the page, and no credentials are configured' };
    }
    if (this.own) return { ok: true, token: this.own.token };
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
    if (own) await logoutAtController(this.http, own.origin, own.token, timeoutMs);
  }

  private async login(credentials: { username: string; password: string }, origins: readonly string[]): Promise<AdminToken> {
    const outcome = await loginAsAdmin(this.http, origins, credentials, this.options.loginTimeoutMs);
    if (outcome.ok) {
      this.own = { token: outcome.token, origin: outcome.origin };
      this.lastFailure = undefined;
      this.options.logger.info('logged in to the management API for the member list', { username: credentials.username, controller: outcome.origin });
      return { ok: true, token: outcome.token };
    }
    const error = `the configured credentials (${credentials.username}) were refused: ${outcome.message}`;
    if (this.lastFailure?.error !== error) this.options.logger.warn('management API login for the member list failed', { username: credentials.username, error: outcome.message });
    this.lastFailure = { at: this.options.now(), error };
    return { ok: false, error };
  }
}
