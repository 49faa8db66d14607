// Seals MFA secrets at rest: AES-256-GCM under the controller's MFA key, bound to the identity (additional data),
// tagged with the key's id so a controller holding another key says so instead of failing obscurely.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SealedValue } from '../../model/entities.ts';

export class MfaKeyMismatch extends Error {
  override readonly name = 'MfaKeyMismatch';
}

export class SecretBox {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error(`the MFA key must be 32 bytes, not ${key.length}`);
    this.keyId = createHash('sha256').update('edgeward-mfa-key-id').update(key).digest('hex').slice(0, 16);
  }

  /** The key itself, for keyed hashes of recovery codes. */
  get hashKey(): Buffer {
    return createHash('sha256').update('edgeward-recovery-code-hash').update(this.key).digest();
  }

  seal(plaintext: string, boundTo: string): SealedValue & { keyId: string } {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64'), keyId: this.keyId };
  }

  open(sealed: SealedValue & { keyId?: string }, boundTo: string): string {
    if (sealed.keyId !== undefined && sealed.keyId !== this.keyId) {
      throw new MfaKeyMismatch(`the MFA secret was sealed with key ${sealed.keyId}, and this controller has key ${this.keyId}: every controller of a cluster needs the same edge.totp.secretKeyFile`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(Buffer.from(boundTo));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
    } catch (cause) {
      throw new MfaKeyMismatch('the MFA secret could not be opened with this controller\'s key (edge.totp.secretKeyFile)', { cause });
    }
  }
}
