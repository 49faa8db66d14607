// What the middleware learns about a request, shared by the routes.
import type { ParameterizedContext } from 'koa';
import type { ApiSession, Identity } from '../model/entities.ts';

/** The route a request matched, made once per route (api-router.ts, matchedRoute). */
export interface MatchedRoute {
  /** The full template, as registered: `/edge/management/v1/identities/:id`. */
  readonly template: string;
  /** The template within its API (the router's prefix left out): `/identities/:id`; a metric label. */
  readonly label: string;
}

export interface RequestState {
  requestId: string;
  session?: ApiSession;
  token?: string;
  identity?: Identity;
}

export type ApiContext = ParameterizedContext<RequestState>;
