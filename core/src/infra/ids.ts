import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32: sorts like the time it encodes

let lastTime = -1;
let lastRandom: number[] = [];

/**
 * A prefixed, time-ordered id (`ord_01J…`): 48 bits of milliseconds then 80 random bits, so ids
 * created later sort later and keyset pages stay cheap. Within one millisecond a process
 * increments the random part, and it never steps back in time, so its ids sort in creation order
 * (monotonic ULID).
 */
export function newId(prefix: string, at: number = Date.now()): string {
  // Never step back: an id made after another sorts after it, even if the clock (or `at`) does not move forward.
  const now = Math.max(at, lastTime);
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  if (now === lastTime) {
    increment(lastRandom);
  } else {
    lastTime = now;
    lastRandom = [...pooledRandom(16)].map((b) => b % 32);
    lastRandom[0] = lastRandom[0]! % 16; // headroom: increments never overflow
  }
  return `${prefix}_${time}${lastRandom.map((d) => ALPHABET[d]).join('')}`;
}

function increment(digits: number[]): void {
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i]! < 31) {
      digits[i]!++;
      return;
    }
    digits[i] = 0;
  }
}

// Random bytes drawn from the OS in blocks: one getrandom call serves many tokens (request ids
// are made on every request, and a system call per request is not free).
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = POOL_SIZE;

function pooledRandom(bytes: number): Buffer {
  if (bytes > POOL_SIZE / 4) return randomBytes(bytes);
  if (poolOffset + bytes > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + bytes));
  // Never hand the same bytes out twice.
  pool.fill(0, poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return out;
}

/** A URL-safe random token of `bytes` random bytes. */
export function randomToken(bytes = 24): string {
  return pooledRandom(bytes).toString('base64url');
}
