// Test support: the user agent's half of an OIDC login against an edgeward controller, with `openid-client` (an
// independent relying party from npm) doing the relying party's half: discovery, the PKCE authorization URL, the
// code exchange with its checks (state, nonce, ID token), refresh. The agent follows the controller's redirects by
// hand, so each login step's answer can be checked as OpenZiti's clients read it.
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import type { HttpResponse, HttpsClient } from './https-client.ts';

export const loopbackRedirect = 'http://127.0.0.1:20314/auth/callback';

/** A `fetch` for openid-client over the test's HTTPS client (the controller's CA is not in Node's store). */
export function caFetch(http: HttpsClient): client.CustomFetch {
  return async (url, options) => {
    const headers = Object.fromEntries(new Headers(options.headers as HeadersInit).entries());
    const body = options.body === undefined || options.body === null ? undefined : String(options.body);
    const response = await http.request(options.method ?? 'GET', url, { headers, ...(body !== undefined ? { rawBody: body } : {}) });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
    return new Response(response.status === 204 || response.status === 304 ? null : response.text, { status: response.status, headers: responseHeaders });
  };
}

/** openid-client's configuration for a controller's issuer (`https://host:port/oidc`). */
export async function relyingParty(http: HttpsClient, origin: string, clientId = 'openziti'): Promise<client.Configuration> {
  const fetch = caFetch(http);
  const config = await client.discovery(new URL(`${origin}/oidc`), clientId, undefined, client.None(), { [client.customFetch]: fetch });
  config[client.customFetch] = fetch;
  return config;
}

export interface PendingLogin {
  readonly authRequestId: string;
  readonly verifier: string;
  readonly state: string;
  readonly nonce: string;
  /** Where the authorization endpoint sent the agent (`/oidc/login/...?authRequestID=`). */
  readonly loginPath: string;
}

/** Starts an authorization request as openid-client builds it; the controller answers 302 to a login page. */
export async function authorize(http: HttpsClient, config: client.Configuration, extra: Record<string, string> = {}, options: { cert?: string; key?: string } = {}): Promise<PendingLogin> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: loopbackRedirect,
    scope: 'openid offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  const response = await http.get(url.href, options);
  assert.equal(response.status, 302, `authorize: ${response.status} ${response.text}`);
  const location = String(response.headers.location);
  const match = /authRequestID=([^&]+)/.exec(location);
  assert.ok(match, `authorize redirected to a login page with authRequestID: ${location}`);
  return { authRequestId: decodeURIComponent(match[1]!), verifier, state, nonce, loginPath: location.split('?')[0]! };
}

/** A login step: POST `origin + /oidc/login/<step>` with the request id and `fields`, as JSON. */
export function loginStep(http: HttpsClient, origin: string, step: string, pending: PendingLogin, fields: Record<string, unknown> = {}, options: { cert?: string; key?: string; headers?: Record<string, string> } = {}): Promise<HttpResponse> {
  return http.post(`${origin}/oidc/login/${step}`, { body: { id: pending.authRequestId, ...fields }, ...options });
}

/** From a step's 302 to the callback, on to the client's redirect URI, then the code exchange by openid-client. */
export async function finishLogin(http: HttpsClient, config: client.Configuration, pending: PendingLogin, stepAnswer: HttpResponse) {
  assert.equal(stepAnswer.status, 302, `the login step completes the login: ${stepAnswer.status} ${stepAnswer.text}`);
  const callback = await http.get(String(stepAnswer.headers.location));
  assert.equal(callback.status, 302, `callback: ${callback.status} ${callback.text}`);
  const redirect = new URL(String(callback.headers.location));
  assert.equal(`${redirect.origin}${redirect.pathname}`, loopbackRedirect);
  return client.authorizationCodeGrant(config, redirect, { pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true });
}

/** The claims of a JWT (not checked: for reading what a token says). */
export function jwtClaims(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, any>;
}
