// What the middleware learns about a request, shared by the routes.
import type { ParameterizedContext } from 'koa';
import type { ApiSession, Identity } from '../model/entities.ts';

/** The route a request matched, made once per route when it is registered (route-table.ts). */
export interface MatchedRoute {
  /** The full template, as registered: `/edge/management/v1/identities/:id`. */
  readonly template: string;
  /** The template within its API (the table's prefix left out): `/identities/:id`; a metric label. */
  readonly label: string;
}

export interface RequestState {
  requestId: string;
  /** Set by the route table that matched the path; absent for a path no route matched. */
  route?: MatchedRoute;
  session?: ApiSession;
  token?: string;
  identity?: Identity;
}

export type ApiContext = ParameterizedContext<RequestState>;
