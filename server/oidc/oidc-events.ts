// What the OIDC provider tells the rest of the controller (metrics and authentication events): tokens issued at the
// end of a login, refreshed (or exchanged), refused at the token endpoint, and revoked.

export type OidcTokenEventKind = 'issued' | 'refreshed' | 'refused' | 'revoked';

export interface OidcTokenEvent {
  readonly kind: OidcTokenEventKind;
  /** The grant type, or what was revoked (`refresh_token`, `access_token`, `end_session`, `logout`). */
  readonly grant: string;
  readonly identityId?: string;
  readonly apiSessionId?: string;
  /** The primary method of the login (issued tokens only). */
  readonly method?: string;
  /** Why a token was refused. */
  readonly reason?: string;
  /** The client's address (`ip:port`) at the endpoint that did it. */
  readonly remoteAddress?: string;
}
