// The OIDC provider's metrics: tokens by grant and result (`edgeward_oidc_tokens_total`), the authorization requests
// waiting for their login to finish, and the signing keys published in the cluster. The token counter's expected
// series start at 0, so an alert's increase() works from the first scrape (a refused-refresh storm after a rotation).
import type { Attributes, Counter, Meter } from '@opentelemetry/api';
import type { OidcTokenEvent } from '../oidc/oidc-events.ts';

export type OidcTokenResult = 'issued' | 'refreshed' | 'refused' | 'revoked';

/** The grant label values (the token-exchange URN shortened); any other grant is counted as `other`. */
export const oidcGrants = ['authorization_code', 'refresh_token', 'token_exchange', 'access_token', 'end_session'] as const;

/** The series that exist from the start: what each grant can end in. */
const expectedSeries: readonly [string, OidcTokenResult][] = [
  ['authorization_code', 'issued'],
  ['refresh_token', 'refreshed'],
  ['refresh_token', 'refused'],
  ['refresh_token', 'revoked'],
  ['token_exchange', 'refreshed'],
  ['token_exchange', 'refused'],
  ['access_token', 'revoked'],
  ['end_session', 'revoked'],
];

export interface OidcGaugeSources {
  readonly pendingAuthorizationRequests: () => number;
  readonly publishedSigningKeys: () => number;
}

export class OidcMetrics {
  private readonly tokens: Counter;
  private readonly labels = new Map<string, Attributes>();

  constructor(meter: Meter, sources: OidcGaugeSources) {
    this.tokens = meter.createCounter('oidc.tokens', {
      description: 'OIDC token endpoint outcomes by grant (authorization_code, refresh_token, token_exchange; access_token, end_session for revocations) and result (issued, refreshed, refused, revoked)',
    });
    for (const [grant, result] of expectedSeries) this.tokens.add(0, this.attributes(grant, result));
    meter
      .createObservableGauge('oidc.authorization_requests_pending', { description: 'OIDC authorization requests on this controller whose login has not finished (kept in memory until they expire)' })
      .addCallback((result) => result.observe(sources.pendingAuthorizationRequests()));
    meter
      .createObservableGauge('oidc.signing_keys', { description: 'OIDC signing keys published in the cluster (every controller\'s current key and retired ones still verifying tokens)' })
      .addCallback((result) => result.observe(sources.publishedSigningKeys()));
  }

  token(event: OidcTokenEvent): void {
    this.tokens.add(1, this.attributes(grantLabel(event.grant), event.kind));
  }

  private attributes(grant: string, result: OidcTokenResult): Attributes {
    const key = `${grant}\u0000${result}`;
    let attributes = this.labels.get(key);
    if (!attributes) this.labels.set(key, (attributes = { grant, result }));
    return attributes;
  }
}

function grantLabel(grant: string): string {
  if (grant === 'urn:ietf:params:oauth:grant-type:token-exchange') return 'token_exchange';
  return (oidcGrants as readonly string[]).includes(grant) ? grant : 'other';
}
