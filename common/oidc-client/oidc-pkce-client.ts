// A command-line or server-side relying party of an edgeward (or OpenZiti) controller's OIDC provider, as OpenZiti's
// C SDK is one: authorization code with PKCE (S256) for the public client `openziti`, a loopback redirect URI that
// nobody listens on (the code is read from the callback's `Location`), the controller's own login steps
// (`/oidc/login/password`, `/oidc/login/totp`), the token endpoint for the code and for refreshes, and revocation.
// It holds no state and touches no socket itself: the HTTP exchange and the randomness are injected, so the edge CLI
// and the status page share it over their own HTTPS clients.

/** One HTTP exchange, redirects not followed. Header names of the answer are lower case. */
export interface OidcHttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}
export interface OidcHttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
}
export type OidcSend = (request: OidcHttpRequest) => Promise<OidcHttpAnswer>;

/** The client OpenZiti's SDKs use; its loopback redirect URIs are registered on every controller. */
export const oidcClientId = 'openziti';
/** Never listened on: the controller's 302 to it carries the code, which is read from the header. */
export const oidcRedirectUri = 'http://127.0.0.1:20314/auth/callback';

export interface OidcTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** When the access token expires (ms since the epoch, from `expires_in` against the injected clock). */
  readonly expiresAtMs: number;
}

/**
 * Why an OIDC exchange failed. `refused`: the controller said no to the credentials or the token (its code and
 * message as it sent them); `mfa-required`: the identity owes a TOTP code and none was given; `ext-jwt-required`: its
 * auth policy wants an external JWT, which these clients cannot supply; `protocol`: an answer that does not follow the
 * flow (not an OIDC provider, or a broken one).
 */
export class OidcLoginError extends Error {
  constructor(
    readonly kind: 'refused' | 'mfa-required' | 'ext-jwt-required' | 'protocol',
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface OidcLoginInput {
  /** `https://host:port`: the controller's web origin (the issuer is `<origin>/oidc`). */
  readonly origin: string;
  readonly username: string;
  readonly password: string;
  /** Asked only when the login owes a TOTP code; undefined (or a rejected promise) when there is none to give. */
  readonly totpCode?: () => Promise<string | undefined>;
}

export interface OidcClientDeps {
  readonly send: OidcSend;
  /** Random bytes for the PKCE verifier and the state. */
  readonly randomBytes: (size: number) => Buffer;
  readonly now: () => number;
  /** A SHA-256 digest, for the S256 challenge. */
  readonly sha256: (text: string) => Buffer;
}

/** Whether a controller's `/version` answer (its `data`) advertises OIDC, as OpenZiti's clients decide it. */
export function advertisesOidc(versionData: unknown): boolean {
  if (versionData === null || typeof versionData !== 'object') return false;
  const data = versionData as { capabilities?: unknown; apiVersions?: unknown };
  const capabilities = Array.isArray(data.capabilities) ? data.capabilities : [];
  const apiVersions = data.apiVersions !== null && typeof data.apiVersions === 'object' ? (data.apiVersions as Record<string, unknown>) : {};
  return capabilities.includes('OIDC_AUTH') && apiVersions['edge-oidc'] !== undefined;
}

/** A password login (with its TOTP step when owed) through the controller's OIDC provider: the tokens it grants. */
export async function oidcPasswordLogin(deps: OidcClientDeps, input: OidcLoginInput): Promise<OidcTokens> {
  const verifier = deps.randomBytes(32).toString('base64url');
  const state = deps.randomBytes(16).toString('base64url');
  const authorize = new URL(`${input.origin}/oidc/authorize`);
  for (const [name, value] of [
    ['client_id', oidcClientId],
    ['response_type', 'code'],
    ['scope', 'openid offline_access'],
    ['redirect_uri', oidcRedirectUri],
    ['code_challenge', deps.sha256(verifier).toString('base64url')],
    ['code_challenge_method', 'S256'],
    ['state', state],
    ['method', 'password'],
  ]) {
    authorize.searchParams.set(name!, value!);
  }
  const started = await deps.send({ method: 'GET', url: authorize.href, headers: { accept: 'application/json' } });
  const loginPage = started.status === 302 ? started.headers.location : undefined;
  const requestId = loginPage ? new URL(loginPage, input.origin).searchParams.get('authRequestID') : null;
  if (!requestId) throw protocolError('the authorization request', started);

  const step = (path: string, fields: Record<string, string>) =>
    deps.send({ method: 'POST', url: `${input.origin}/oidc/login/${path}`, headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify({ id: requestId, ...fields }) });
  let answer = await step('password', { username: input.username, password: input.password });
  if (answer.status === 200) {
    const queries = authQueriesOf(answer.body);
    if (queries.includes('EXT-JWT')) throw new OidcLoginError('ext-jwt-required', 200, 'EXT_JWT_REQUIRED', `${input.username}'s auth policy requires an external JWT as a second factor`);
    if (queries.includes('TOTP') || answer.headers['totp-required'] === 'true') {
      const code = input.totpCode ? await input.totpCode() : undefined;
      if (!code) throw new OidcLoginError('mfa-required', 200, 'MFA_REQUIRED', `${input.username} owes an MFA code`);
      answer = await step('totp', { code });
    }
  }
  if (answer.status !== 302) throw refusalOf('the login', answer);
  const callback = await deps.send({ method: 'GET', url: new URL(answer.headers.location ?? '', input.origin).href, headers: { accept: 'application/json' } });
  const redirect = callback.status === 302 && callback.headers.location ? new URL(callback.headers.location, input.origin) : undefined;
  if (!redirect || `${redirect.origin}${redirect.pathname}` !== oidcRedirectUri) throw protocolError('the authorization callback', callback);
  if (redirect.searchParams.get('state') !== state) throw new OidcLoginError('protocol', callback.status, 'STATE_MISMATCH', 'the authorization callback carried another state');
  const code = redirect.searchParams.get('code');
  if (!code) throw new OidcLoginError('refused', 401, redirect.searchParams.get('error') ?? 'NO_CODE', redirect.searchParams.get('error_description') ?? 'the login ended without a code');
  return tokenGrant(deps, input.origin, { grant_type: 'authorization_code', code, redirect_uri: oidcRedirectUri, code_verifier: verifier });
}

/** New tokens for a refresh token, from any controller of the cluster (the refresh token is rotated). */
export function oidcRefresh(deps: Pick<OidcClientDeps, 'send' | 'now'>, origin: string, refreshToken: string): Promise<OidcTokens> {
  return tokenGrant(deps, origin, { grant_type: 'refresh_token', refresh_token: refreshToken });
}

/** Ends the API session the refresh token belongs to, on every controller (RFC 7009; the answer is always 200). */
export async function oidcRevoke(deps: Pick<OidcClientDeps, 'send'>, origin: string, refreshToken: string): Promise<void> {
  const answer = await deps.send({
    method: 'POST',
    url: `${origin}/oidc/revoke`,
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: refreshToken, token_type_hint: 'refresh_token', client_id: oidcClientId }).toString(),
  });
  if (answer.status !== 200) throw refusalOf('the revocation', answer);
}

async function tokenGrant(deps: Pick<OidcClientDeps, 'send' | 'now'>, origin: string, form: Record<string, string>): Promise<OidcTokens> {
  const answer = await deps.send({
    method: 'POST',
    url: `${origin}/oidc/oauth/token`,
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form, client_id: oidcClientId }).toString(),
  });
  if (answer.status !== 200) throw refusalOf(`the token request (${form.grant_type})`, answer);
  const json = parseJson(answer.body) as { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown } | undefined;
  if (typeof json?.access_token !== 'string' || typeof json.refresh_token !== 'string' || typeof json.expires_in !== 'number') throw protocolError('the token request', answer);
  return { accessToken: json.access_token, refreshToken: json.refresh_token, expiresAtMs: deps.now() + json.expires_in * 1000 };
}

function authQueriesOf(body: string): string[] {
  const json = parseJson(body) as { authQueries?: unknown } | undefined;
  return Array.isArray(json?.authQueries) ? json.authQueries.map((query) => String((query as { typeId?: unknown } | null)?.typeId ?? '')) : [];
}

/** A refusal in whichever shape the endpoint uses: a login step's bare `{code, message}`, the API's envelope, or OAuth's `{error, error_description}`. */
function refusalOf(what: string, answer: OidcHttpAnswer): OidcLoginError {
  const json = parseJson(answer.body) as Record<string, unknown> | undefined;
  const inner = json && typeof json.error === 'object' && json.error !== null ? (json.error as Record<string, unknown>) : json;
  const code = typeof inner?.code === 'string' ? inner.code : typeof json?.error === 'string' ? json.error : undefined;
  const message = typeof inner?.message === 'string' ? inner.message : typeof json?.error_description === 'string' ? json.error_description : undefined;
  if (answer.status >= 400 && answer.status < 500 && code !== undefined) return new OidcLoginError('refused', answer.status, code, message ?? '');
  return protocolError(what, answer);
}

function protocolError(what: string, answer: OidcHttpAnswer): OidcLoginError {
  return new OidcLoginError('protocol', answer.status, 'OIDC_PROTOCOL', `${what} was answered ${answer.status}${answer.body ? `: ${answer.body.slice(0, 200)}` : ''}`);
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
