// What the middleware learns about a request, shared by the routes.
import type { ParameterizedContext } from 'koa';
import type { ApiSession, Identity } from '../model/entities.ts';

export interface RequestState {
  requestId: string;
  session?: ApiSession;
  token?: string;
  identity?: Identity;
}

export type ApiContext = ParameterizedContext<RequestState>;
