import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32: sorts like the time it encodes

/**
 * A prefixed, time-ordered id (`ord_01J…`): 48 bits of milliseconds then 80 random bits, so ids
 * created later sort later and keyset pages stay cheap.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let random = '';
  for (let i = 0; i < 16; i++) random += ALPHABET[bytes[i]! % 32];
  return `${prefix}_${time}${random}`;
}

/** A URL-safe random token of `bytes` random bytes. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
