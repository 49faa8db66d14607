// What an authenticator app does with a provisioning URL, written independently of the server's TOTP code (RFC 6238
// with HMAC-SHA1 from node:crypto, base32 decoding by hand): read the secret, compute codes, and never offer the same
// time step twice, as a server that refuses replays expects.
import { createHmac } from 'node:crypto';

const base32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = base32.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4226 HOTP with dynamic truncation; RFC 6238 TOTP is HOTP of the time step. */
export function hotp(key: Buffer, counter: number, digits = 6, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

export const stepOf = (ms: number) => Math.floor(ms / 30_000);

export interface Provisioning {
  readonly issuer: string;
  readonly account: string;
  readonly secret: string;
}

/** `otpauth://totp/<issuer>:<account>?secret=...&issuer=...` as an app parses it. */
export function parseProvisioningUrl(url: string): Provisioning {
  const parsed = new URL(url);
  if (parsed.protocol !== 'otpauth:' || parsed.host !== 'totp') throw new Error(`not an otpauth totp URL: ${url}`);
  const label = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  const [labelIssuer, account] = label.includes(':') ? [label.slice(0, label.indexOf(':')), label.slice(label.indexOf(':') + 1)] : ['', label];
  const secret = parsed.searchParams.get('secret');
  const issuer = parsed.searchParams.get('issuer') ?? labelIssuer;
  if (!secret) throw new Error('no secret in the provisioning URL');
  if (labelIssuer && labelIssuer !== issuer) throw new Error(`label issuer ${labelIssuer} differs from issuer ${issuer}`);
  return { issuer, account, secret };
}

export class AuthenticatorApp {
  private readonly key: Buffer;
  private lastStep = 0;

  constructor(readonly provisioning: Provisioning) {
    this.key = base32Decode(provisioning.secret);
  }

  static fromUrl(url: string): AuthenticatorApp {
    return new AuthenticatorApp(parseProvisioningUrl(url));
  }

  /** The code of one time step. */
  codeAt(step: number): string {
    return hotp(this.key, step);
  }

  /**
   * A code the server accepts now and has not seen: the first step after the last one used, within a step of the
   * current one (servers accept ±1); when none is left, wait for the next step to begin.
   */
  async nextCode(): Promise<string> {
    for (;;) {
      const now = Date.now();
      const current = stepOf(now);
      let step = Math.max(this.lastStep + 1, current - 1);
      // The previous step stays valid only until this one ends: too close to that edge, take the current step.
      if (step === current - 1 && now % 30_000 > 27_000) step = current;
      if (step <= current + 1) {
        this.lastStep = step;
        return this.codeAt(step);
      }
      await new Promise((resolve) => setTimeout(resolve, 30_000 - (Date.now() % 30_000) + 50));
    }
  }

  /** A code no step near now produces (for wrong-code cases). */
  wrongCode(): string {
    const current = stepOf(Date.now());
    const near = new Set([-2, -1, 0, 1, 2].map((offset) => this.codeAt(current + offset)));
    for (let n = 0; ; n++) {
      const candidate = String((123456 + n * 7919) % 1_000_000).padStart(6, '0');
      if (!near.has(candidate)) return candidate;
    }
  }
}
