// This controller's OIDC signing key and every controller's published verification keys. The key pair is made in
// memory at start and at each rotation; only its public half is written (raft command oidcKey.publish), so a
// token signed here verifies on every controller, and a controller that dies takes no secret with it. Tokens are
// signed only once the key is committed: until then no other controller could check them.
import { createHash, createPublicKey, generateKeyPair, type JsonWebKey, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { JwsAlgorithm } from './compact-jws.ts';
import type { ModelWriter } from '../edge/model-writer.ts';
import { oidcKeyTables, type OidcSigningKey, type PublicJwk } from '../model/oidc-key-entities.ts';

const generateEcKeyPair = promisify(generateKeyPair);

/** ES256 (P-256): signing is twenty times cheaper than RS256's, and OpenZiti's controllers sign with it when their
 * key is an EC key; discovery says so, so relying parties accept it. RS256 keys published earlier still verify. */
export const signingAlgorithm = 'ES256';

export interface CurrentSigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly issuer: string;
}

export interface VerificationKey {
  readonly publicKey: KeyObject;
  /** The algorithm the key signs with (from its published JWK): a token naming another is refused. */
  readonly algorithm: JwsAlgorithm;
  readonly issuer: string;
  readonly controllerId: string;
  readonly retiredAt: string | null;
}

export class OidcSigningKeys {
  private current: CurrentSigningKey | undefined;
  private currentSince = 0;
  private rotating: Promise<void> | undefined;
  /** Imported public keys by kid, with the row they came from (rows are immutable: a new row means re-import). */
  private readonly imported = new Map<string, { row: OidcSigningKey; key: VerificationKey }>();

  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly controllerId: string,
    private readonly issuer: string,
  ) {}

  /** The key to sign with now, or undefined while the first one is not yet committed. */
  signingKey(): CurrentSigningKey | undefined {
    return this.current;
  }

  /** Makes and publishes a new key; resolves once it is committed and in use. Concurrent calls share one rotation. */
  rotate(): Promise<void> {
    this.rotating ??= this.makeAndPublish().finally(() => {
      this.rotating = undefined;
    });
    return this.rotating;
  }

  /** Rotates when the current key is older than `intervalMs` (or there is none yet). */
  async rotateIfDue(intervalMs: number): Promise<boolean> {
    if (this.current && this.clock.now() - this.currentSince < intervalMs) return false;
    await this.rotate();
    return true;
  }

  private async makeAndPublish(): Promise<void> {
    const { privateKey } = await generateEcKeyPair('ec', { namedCurve: 'P-256' });
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as { kty: string; crv: string; x: string; y: string };
    const kid = jwkThumbprint(jwk);
    const at = isoTime(this.clock.now());
    const publicJwk: PublicJwk = { kty: jwk.kty, kid, alg: signingAlgorithm, use: 'sig', crv: jwk.crv, x: jwk.x, y: jwk.y };
    const row: OidcSigningKey = { id: kid, createdAt: at, updatedAt: at, tags: {}, controllerId: this.controllerId, issuer: this.issuer, publicJwk, retiredAt: null };
    await this.writer.write({ type: 'oidcKey.publish', key: row });
    this.current = { kid, privateKey, issuer: this.issuer };
    this.currentSince = this.clock.now();
  }

  /** The published key `kid` names, imported for verification; undefined when no controller published it. */
  verificationKey(kid: string): VerificationKey | undefined {
    const row = this.store.table<OidcSigningKey>(oidcKeyTables.signingKeys).get(kid);
    if (!row) {
      this.imported.delete(kid);
      return undefined;
    }
    const cached = this.imported.get(kid);
    if (cached && cached.row === row) return cached.key;
    const key: VerificationKey = {
      publicKey: createPublicKey({ key: row.publicJwk as unknown as JsonWebKey, format: 'jwk' }),
      algorithm: row.publicJwk.alg === 'RS256' ? 'RS256' : 'ES256',
      issuer: row.issuer,
      controllerId: row.controllerId,
      retiredAt: row.retiredAt,
    };
    this.imported.set(kid, { row, key });
    return key;
  }

  /** Every published key, current and retired, as the JWKS document lists them. */
  publishedJwks(): { keys: PublicJwk[] } {
    const rows = this.store.table<OidcSigningKey>(oidcKeyTables.signingKeys).all();
    return { keys: rows.map((row) => row.publicJwk) };
  }

  /** Removes keys retired longer ago than `keepMs` (the longest token lifetime): one command, none when nothing to do. */
  async prune(keepMs: number): Promise<number> {
    const before = isoTime(this.clock.now() - keepMs);
    const rows = this.store.table<OidcSigningKey>(oidcKeyTables.signingKeys).all();
    if (!rows.some((row) => row.retiredAt !== null && row.retiredAt <= before)) return 0;
    const written = await this.writer.write<{ pruned: number }>({ type: 'oidcKey.prune', before, limit: 1_000 });
    return written.value.pruned;
  }
}

/** RFC 7638: SHA-256 of the required members of an EC key in lexical order, base64url. */
function jwkThumbprint(jwk: { kty: string; crv: string; x: string; y: string }): string {
  return createHash('sha256').update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })).digest('base64url');
}
