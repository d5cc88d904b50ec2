import { createCipheriv, createDecipheriv, createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** SHA-256 hex of a secret (API keys): the database never holds the key itself. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** Opened secrets a SecretBox remembers at most (openRemembered). */
const OPENED_KEPT = 10_000;

/**
 * AES-256-GCM for secrets at rest (webhook secrets, store credentials). The stored text is
 * `v1.<iv>.<tag>.<ciphertext>` in base64url, so a key rotation can add `v2` later.
 */
export class SecretBox {
  readonly #key: Buffer;
  readonly #opened = new LRUCache<string, string>({ max: OPENED_KEPT });

  constructor(keyBase64: string) {
    const key = Buffer.from(keyBase64, 'base64');
    if (key.length !== 32) throw new Error('The encryption key must be 32 bytes');
    this.#key = key;
  }

  static generateKey(): string {
    return randomBytes(32).toString('base64');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('Not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }

  /**
   * `open`, remembered: a secret checked on every delivery (webhook signing and verification)
   * is decrypted once per sealed value. A replaced secret is a new sealed value, so it is never
   * served from here; at most OPENED_KEPT values are kept.
   */
  openRemembered(sealed: string): string {
    let plain = this.#opened.get(sealed);
    if (plain === undefined) {
      plain = this.open(sealed);
      this.#opened.set(sealed, plain);
    }
    return plain;
  }

  sealJson(value: unknown): string {
    return this.seal(JSON.stringify(value));
  }

  openJson<T>(sealed: string): T {
    return JSON.parse(this.open(sealed)) as T;
  }
}
