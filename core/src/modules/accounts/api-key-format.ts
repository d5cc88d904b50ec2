import { randomBytes } from 'node:crypto';
import type { Mode } from '../../kernel/tenant.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 32;
export const API_KEY_PATTERN = /^prk_(live|test)_[0-9A-Za-z]{32}$/;

/** A new key: `prk_live_` or `prk_test_` and 32 base62 characters (~190 bits). */
export function generateApiKey(mode: Mode): { key: string; prefix: string } {
  const bytes = randomBytes(SECRET_LENGTH * 2);
  let secret = '';
  // Rejection sampling keeps every character equally likely.
  for (const b of bytes) {
    if (b < 248) secret += BASE62[b % 62];
    if (secret.length === SECRET_LENGTH) break;
  }
  while (secret.length < SECRET_LENGTH) secret += BASE62[randomBytes(1)[0]! % 62];
  const key = `prk_${mode}_${secret}`;
  return { key, prefix: displayPrefix(key) };
}

/** What the dashboard shows of a key: its mode and first characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, 'prk_live_'.length + 6);
}

export function modeOfKey(key: string): Mode | undefined {
  const m = API_KEY_PATTERN.exec(key);
  return m ? (m[1] as Mode) : undefined;
}
