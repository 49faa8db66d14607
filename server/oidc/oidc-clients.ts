// The OAuth clients an OIDC provider of edgeward knows: OpenZiti's public native clients `openziti` (its SDKs and
// tools) and `native` (older SDKs), which authenticate with PKCE instead of a secret and may only be sent back to
// the redirect URIs below (OpenZiti's defaults; `*` is any port, or any run of characters without a slash).

export interface OidcClient {
  readonly id: string;
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris: readonly string[];
}

export const defaultRedirectUris = [
  'openziti://auth/callback',
  'https://127.0.0.1:*/auth/callback',
  'http://127.0.0.1:*/auth/callback',
  'https://localhost:*/auth/callback',
  'http://localhost:*/auth/callback',
  'http://[::1]:*/auth/callback',
] as const;

export const defaultPostLogoutRedirectUris = [
  'openziti://auth/logout',
  'https://127.0.0.1:*/auth/logout',
  'http://127.0.0.1:*/auth/logout',
  'https://localhost:*/auth/logout',
  'http://localhost:*/auth/logout',
  'http://[::1]:*/auth/logout',
] as const;

export const clientIds = ['openziti', 'native'] as const;

export function defaultClients(redirectUris: readonly string[] = defaultRedirectUris, postLogoutRedirectUris: readonly string[] = defaultPostLogoutRedirectUris): Map<string, OidcClient> {
  return new Map(clientIds.map((id) => [id, { id, redirectUris, postLogoutRedirectUris }]));
}

const globCache = new Map<string, RegExp>();

function globRegExp(glob: string): RegExp {
  let compiled = globCache.get(glob);
  if (!compiled) {
    const escaped = glob.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    compiled = new RegExp(`^${escaped.join('[^/?#]*')}$`);
    globCache.set(glob, compiled);
  }
  return compiled;
}

/** True when `uri` matches one of the globs exactly (no prefix match: a query or fragment is not allowed). */
export function matchesRedirectUri(globs: readonly string[], uri: string): boolean {
  if (uri.length > 2048 || uri.includes('#')) return false;
  return globs.some((glob) => globRegExp(glob).test(uri));
}
