// `edgeward edge login` against a controller whose `/version` advertises OIDC: the PKCE login of
// common/oidc-client with the command's username, password and MFA code, then who logged in and the cluster's
// controllers to fail over to, read with the new token. `logout` revokes the refresh token. The failures read as
// the legacy login's do (the controller's code and message, the same MFA usage error).
import { createHash, randomBytes } from 'node:crypto';
import { advertisesOidc, oidcPasswordLogin, oidcRevoke, OidcLoginError, type OidcTokens } from '../../../common/oidc-client/oidc-pkce-client.ts';
import { EdgeUsageError } from './edge-args.ts';
import { ApiFailure, EdgeFailure, UnreachableFailure } from './edge-errors.ts';
import { ManagementClient, type Transport } from './management-client.ts';
import { managementUrlsOf, oidcSessionTransport, type OidcSessionState } from './oidc-session-transport.ts';

/** Whether the controller at `origin` offers OIDC (`/version`: OIDC_AUTH and apiVersions["edge-oidc"]). */
export async function controllerOffersOidc(transport: Transport, origin: string): Promise<boolean> {
  const answer = await transport.send({ method: 'GET', url: `${origin}/version`, headers: { accept: 'application/json' } });
  if (answer.status !== 200) return false;
  try {
    return advertisesOidc((JSON.parse(answer.body) as { data?: unknown }).data);
  } catch {
    return false;
  }
}

export interface OidcLoginResult {
  readonly state: OidcSessionState;
  readonly identity: Record<string, unknown>;
}

/** Logs in through OIDC at `controllerUrl` (a Management API base URL); `mfaCode` is asked only when one is owed. */
export async function loginThroughOidc(transport: Transport, controllerUrl: string, username: string, password: string, mfaCode: () => Promise<string>): Promise<OidcLoginResult> {
  const origin = new URL(controllerUrl).origin;
  let tokens: OidcTokens;
  try {
    tokens = await oidcPasswordLogin(
      { send: (request) => transport.send(request), randomBytes: (size) => randomBytes(size), now: () => Date.now(), sha256: (text) => createHash('sha256').update(text).digest() },
      { origin, username, password, totpCode: mfaCode },
    );
  } catch (error) {
    if (!(error instanceof OidcLoginError)) throw error;
    if (error.kind === 'refused') throw new ApiFailure(error.status, error.code, error.message, undefined, undefined, undefined);
    if (error.kind === 'ext-jwt-required') throw new EdgeFailure(`${username}'s auth policy requires an external JWT as a second factor, which this command cannot supply`);
    if (error.kind === 'mfa-required') throw new EdgeUsageError(`${username} owes an MFA code: give it with --mfa-code <code>`);
    throw new EdgeFailure(`the OIDC login at ${origin} failed: ${error.message}`);
  }
  let state: OidcSessionState = { controllerUrl, tokens, controllers: [controllerUrl] };
  const client = new ManagementClient(controllerUrl, oidcSessionTransport(transport, state, { now: () => Date.now(), notice: () => undefined, saved: (next) => (state = next), loginAgain: '' }));
  let identity: Record<string, unknown>;
  try {
    identity = await client.get('/current-identity');
  } catch (error) {
    // Nothing is stored: the session is ended rather than left live on the cluster.
    await revokeOidcSession(transport, [state.controllerUrl], state.tokens.refreshToken).catch(() => undefined);
    throw error;
  }
  // Only an administrator may list the controllers; anyone else (or a list that cannot be read now) keeps the one it
  // logged in to.
  if (identity.isAdmin === true) {
    try {
      const controllers = await client.list('/controllers', undefined);
      state = { ...state, controllers: managementUrlsOf(controllers.items, state.controllerUrl) };
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
    }
  }
  return { state, identity };
}

/** Ends the OIDC session on the cluster: the refresh token is revoked at the first controller that answers. */
export async function revokeOidcSession(transport: Transport, controllers: readonly string[], refreshToken: string): Promise<void> {
  let last: unknown;
  for (const controllerUrl of controllers) {
    try {
      await oidcRevoke({ send: (request) => transport.send(request) }, new URL(controllerUrl).origin, refreshToken);
      return;
    } catch (error) {
      if (!(error instanceof UnreachableFailure)) throw error;
      last = error;
    }
  }
  throw last ?? new EdgeFailure('no controller to revoke the session at');
}
