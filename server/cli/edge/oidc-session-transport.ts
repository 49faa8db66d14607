// The transport of an OIDC session (`edgeward edge login` against a controller that offers OIDC): every Management
// API call carries `Authorization: Bearer <access token>`; a token that is near its expiry (or that a controller
// answers 401 "expired") is refreshed first; a controller that does not answer is left for the next one of the
// cluster (the list `GET /controllers` gave at login), where the refresh token works as well, and the operator is told
// so on stderr. What changed (tokens, controller) is handed to `saved`, so the next command starts from it.
import { oidcRefresh, OidcLoginError, type OidcTokens } from '../../../common/oidc-client/oidc-pkce-client.ts';
import { EdgeFailure, UnreachableFailure } from './edge-errors.ts';
import type { HttpAnswer, HttpRequest, Transport } from './management-client.ts';

/** Refresh when less than this is left of the access token, so a call does not race its expiry. */
export const refreshMarginMs = 10_000;

export interface OidcSessionState {
  /** The Management API base URL of the controller in use. */
  readonly controllerUrl: string;
  readonly tokens: OidcTokens;
  /** Every controller's Management API base URL, the one in use among them. */
  readonly controllers: readonly string[];
}

export interface OidcSessionOptions {
  readonly now: () => number;
  /** One line for the operator (stderr). */
  readonly notice: (line: string) => void;
  /** Keeps the new state (the session file). */
  readonly saved: (state: OidcSessionState) => void;
  /** The command that logs in again, for the failure that says to. */
  readonly loginAgain: string;
}

export function oidcSessionTransport(inner: Transport, initial: OidcSessionState, options: OidcSessionOptions): Transport {
  let state = initial;
  /** The base URL the Management client builds its requests on; they go wherever the session is now. */
  const base = initial.controllerUrl;
  const origin = (url: string) => new URL(url).origin;

  const adopt = (next: OidcSessionState) => {
    state = next;
    options.saved(next);
  };

  /** New tokens from the controller in use, else from the others in turn; the one that answered becomes the one in use. */
  const refresh = async (): Promise<void> => {
    const candidates = [state.controllerUrl, ...state.controllers.filter((url) => url !== state.controllerUrl)];
    const unreachable: string[] = [];
    for (const controllerUrl of candidates) {
      let tokens: OidcTokens;
      try {
        tokens = await oidcRefresh({ send: (request) => inner.send(request), now: options.now }, origin(controllerUrl), state.tokens.refreshToken);
      } catch (error) {
        if (error instanceof UnreachableFailure) {
          unreachable.push(`${origin(controllerUrl)} (${error.message})`);
          continue;
        }
        if (error instanceof OidcLoginError) throw new EdgeFailure(`the session can no longer be refreshed (${error.code}: ${error.message}): ${options.loginAgain}`);
        throw error;
      }
      if (controllerUrl !== state.controllerUrl) options.notice(`warning: controller ${origin(state.controllerUrl)} is unreachable: continuing through ${origin(controllerUrl)}`);
      adopt({ ...state, controllerUrl, tokens });
      return;
    }
    throw new EdgeFailure(`no controller of the cluster answers: ${unreachable.join('; ')}`);
  };

  /** The request addressed to the controller in use, with the current access token. */
  const addressed = (request: HttpRequest): HttpRequest => ({
    ...request,
    url: request.url.startsWith(base) ? `${state.controllerUrl}${request.url.slice(base.length)}` : request.url,
    headers: { ...request.headers, authorization: `Bearer ${state.tokens.accessToken}` },
  });

  return {
    async send(request) {
      if (state.tokens.expiresAtMs - options.now() < refreshMarginMs) await refresh();
      const from = state.controllerUrl;
      let answer: HttpAnswer;
      try {
        answer = await inner.send(addressed(request));
      } catch (error) {
        if (!(error instanceof UnreachableFailure)) throw error;
        await refresh(); // moves to a controller that answers, or fails saying none does
        if (state.controllerUrl === from) throw error;
        return inner.send(addressed(request));
      }
      if (answer.status === 401 && /Bearer realm="openziti-oidc" error="expired"/.test(answer.headers['www-authenticate'] ?? '')) {
        await refresh();
        return inner.send(addressed(request));
      }
      return answer;
    },
    close() {
      inner.close();
    },
  };
}

/** Management API base URLs of a `GET /controllers` list (`apiAddresses["edge-management"]`), `first` leading. */
export function managementUrlsOf(controllers: readonly Record<string, unknown>[], first: string): string[] {
  const urls = [first];
  for (const controller of controllers) {
    const addresses = (controller.apiAddresses as Record<string, unknown> | null | undefined)?.['edge-management'];
    if (!Array.isArray(addresses)) continue;
    for (const address of addresses) {
      const url = (address as { url?: unknown } | null)?.url;
      if (typeof url === 'string' && /^https:\/\//.test(url) && !urls.includes(url.replace(/\/+$/, ''))) urls.push(url.replace(/\/+$/, ''));
    }
  }
  return urls;
}
