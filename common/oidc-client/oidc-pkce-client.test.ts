import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { advertisesOidc, oidcPasswordLogin, oidcRefresh, OidcLoginError, oidcRedirectUri, type OidcHttpAnswer, type OidcHttpRequest } from './oidc-pkce-client.ts';

const origin = 'https://ctrl.test:1280';

/** A scripted provider: each step answers as an edgeward controller does; `totp` decides whether a code is owed. */
function provider(options: { totp?: boolean; password?: string; stateOverride?: string } = {}) {
  const seen: OidcHttpRequest[] = [];
  let challenge = '';
  let state = '';
  const send = async (request: OidcHttpRequest): Promise<OidcHttpAnswer> => {
    seen.push(request);
    const url = new URL(request.url);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body: JSON.stringify(body) });
    const redirect = (location: string) => ({ status: 302, headers: { location }, body: '' });
    switch (`${request.method} ${url.pathname}`) {
      case 'GET /oidc/authorize':
        challenge = url.searchParams.get('code_challenge') ?? '';
        state = url.searchParams.get('state') ?? '';
        assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
        assert.equal(url.searchParams.get('client_id'), 'openziti');
        return redirect('/oidc/login/username?authRequestID=ar1');
      case 'POST /oidc/login/password': {
        const body = JSON.parse(request.body!) as Record<string, string>;
        assert.equal(body.id, 'ar1');
        if (body.password !== (options.password ?? 'right')) return json(401, { code: 'INVALID_AUTH', message: 'The authentication request failed' });
        if (options.totp) return json(200, { authQueries: [{ typeId: 'TOTP' }] }, { 'totp-required': 'true' });
        return redirect(`${origin}/oidc/authorize/callback?id=ar1`);
      }
      case 'POST /oidc/login/totp': {
        const body = JSON.parse(request.body!) as Record<string, string>;
        if (body.code !== '123456') return json(400, { code: 'INVALID TOTP CODE', message: 'an invalid TOTP code was supplied' });
        return redirect(`${origin}/oidc/authorize/callback?id=ar1`);
      }
      case 'GET /oidc/authorize/callback':
        return redirect(`${oidcRedirectUri}?state=${options.stateOverride ?? state}&code=c1`);
      case 'POST /oidc/oauth/token': {
        const form = new URLSearchParams(request.body);
        if (form.get('grant_type') === 'authorization_code') {
          assert.equal(createHash('sha256').update(form.get('code_verifier')!).digest('base64url'), challenge, 'the verifier matches the S256 challenge');
          return json(200, { access_token: 'a1', refresh_token: 'r1', expires_in: 20, token_type: 'Bearer' });
        }
        if (form.get('refresh_token') === 'r1') return json(200, { access_token: 'a2', refresh_token: 'r2', expires_in: 20, token_type: 'Bearer' });
        return json(400, { error: 'invalid_grant', error_description: 'refresh token refused: revoked' });
      }
      default:
        return json(404, {});
    }
  };
  const deps = { send, randomBytes: (size: number) => Buffer.alloc(size, 7), now: () => 1_000_000, sha256: (text: string) => createHash('sha256').update(text).digest() };
  return { seen, deps };
}

test('a password login follows the steps to the code and exchanges it with the PKCE verifier', async () => {
  const { deps, seen } = provider();
  const tokens = await oidcPasswordLogin(deps, { origin, username: 'admin', password: 'right' });
  assert.deepEqual(tokens, { accessToken: 'a1', refreshToken: 'r1', expiresAtMs: 1_020_000 });
  assert.deepEqual(seen.map((request) => `${request.method} ${new URL(request.url).pathname}`), ['GET /oidc/authorize', 'POST /oidc/login/password', 'GET /oidc/authorize/callback', 'POST /oidc/oauth/token']);
});

test('a TOTP step is taken only when owed, with the code asked for then; none given is mfa-required', async () => {
  let asked = 0;
  const tokens = await oidcPasswordLogin(provider({ totp: true }).deps, { origin, username: 'admin', password: 'right', totpCode: async () => (asked++, '123456') });
  assert.equal(tokens.accessToken, 'a1');
  assert.equal(asked, 1);
  await assert.rejects(oidcPasswordLogin(provider({ totp: true }).deps, { origin, username: 'admin', password: 'right' }), (error: unknown) => error instanceof OidcLoginError && error.kind === 'mfa-required');
  await assert.rejects(oidcPasswordLogin(provider({ totp: true }).deps, { origin, username: 'admin', password: 'right', totpCode: async () => '000000' }), (error: unknown) => error instanceof OidcLoginError && error.kind === 'refused' && error.code === 'INVALID TOTP CODE');
});

test('refusals carry the controller code and message; a foreign state is a protocol error', async () => {
  await assert.rejects(oidcPasswordLogin(provider().deps, { origin, username: 'admin', password: 'wrong' }), (error: unknown) => error instanceof OidcLoginError && error.kind === 'refused' && error.status === 401 && error.code === 'INVALID_AUTH' && error.message === 'The authentication request failed');
  await assert.rejects(oidcPasswordLogin(provider({ stateOverride: 'other' }).deps, { origin, username: 'admin', password: 'right' }), (error: unknown) => error instanceof OidcLoginError && error.kind === 'protocol');
  const { deps } = provider();
  assert.equal((await oidcRefresh(deps, origin, 'r1')).refreshToken, 'r2');
  await assert.rejects(oidcRefresh(deps, origin, 'spent'), (error: unknown) => error instanceof OidcLoginError && error.kind === 'refused' && error.code === 'invalid_grant');
});

test('OIDC is advertised only with the capability and the edge-oidc API both', () => {
  assert.equal(advertisesOidc({ capabilities: ['OIDC_AUTH', 'HA_CONTROLLER'], apiVersions: { 'edge-oidc': { v1: { path: '/oidc' } } } }), true);
  assert.equal(advertisesOidc({ capabilities: ['HA_CONTROLLER'], apiVersions: { 'edge-oidc': {} } }), false);
  assert.equal(advertisesOidc({ capabilities: ['OIDC_AUTH'], apiVersions: {} }), false);
  assert.equal(advertisesOidc(undefined), false);
});
