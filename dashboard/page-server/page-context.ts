// What every status page handler shares: the server's dependencies, whether a login is required, the cookie that
// carries a page session, and the open event streams.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { DashboardConfig } from '../config/dashboard-config.ts';
import type { ClusterGatherer } from './cluster-gatherer.ts';
import type { HttpClient } from './http-client.ts';
import type { NextHandler } from './next-app.ts';
import { cookieValue } from './page-http.ts';
import type { PageSession, PageSessions } from './page-sessions.ts';
import { runbooksPage } from './runbooks-page.ts';

export interface DashboardServerDeps {
  readonly config: DashboardConfig;
  readonly gatherer: ClusterGatherer;
  readonly sessions: PageSessions;
  readonly http: HttpClient;
  readonly next: NextHandler;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Read at start when `tls` is set. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** docs/runbooks.md, when it is there. */
  readonly runbooks?: string;
}

export interface PageContext {
  readonly deps: DashboardServerDeps;
  readonly loginRequired: boolean;
  /** Served over TLS: the cookie is Secure and __Host-. */
  readonly secure: boolean;
  readonly cookieName: string;
  readonly streams: Set<ServerResponse>;
  /** The runbooks as the page served at /runbooks (made once), when docs/runbooks.md is there. */
  readonly runbooksHtml: string | undefined;
  sessionOf(req: IncomingMessage): PageSession | undefined;
  /** Whether the request may see the cluster state: no login required, or a live session. */
  allowed(req: IncomingMessage): boolean;
}

export function pageContext(deps: DashboardServerDeps): PageContext {
  const secure = deps.tls !== undefined;
  const loginRequired = deps.config.auth === 'required';
  const cookieName = secure ? '__Host-edgeward-status' : 'edgeward-status';
  const sessionOf = (req: IncomingMessage) => deps.sessions.lookup(cookieValue(req.headers.cookie, cookieName));
  const runbooksHtml = deps.runbooks === undefined ? undefined : runbooksPage(deps.runbooks);
  return { deps, loginRequired, secure, cookieName, streams: new Set(), runbooksHtml, sessionOf, allowed: (req) => !loginRequired || sessionOf(req) !== undefined };
}
