import type { Request } from 'express';
import type { SignInLimiter } from '../../modules/sessions/sign-in-limiter.ts';
import { Refusal } from '../../kernel/refusal.ts';
import { ApiError } from '../api-error.ts';
import { clientAddress } from '../../web/client-address.ts';

export { clientAddress };

/**
 * A wrong bearer credential (an API key, the admin token) is counted against the client's
 * address; once there are too many, a wrong one answers 429 with Retry-After instead of 401.
 * Only failures are counted and only a wrong credential is ever refused this way: a right one
 * is checked first and always goes through, so a lockout cannot deny service to the owner of
 * the key sharing an address (a proxy, an office) with whoever guesses.
 */
export async function refusedCredential(
  limiter: SignInLimiter | undefined,
  req: Request,
  refusal: unknown,
  what: string,
): Promise<unknown> {
  if (!limiter || !(refusal instanceof Refusal) || refusal.code !== 'unauthorized') return refusal;
  // The count is bookkeeping: a limiter that cannot count answers the 401, never a 500.
  const wait = await limiter.failed(`bearer:${clientAddress(req)}`).catch(() => 0);
  if (wait === 0) return refusal;
  return new ApiError(
    429,
    'too_many_failures',
    `Too many wrong ${what} from this address: a wrong one is refused for ${wait} more seconds (a right one still works).`,
    undefined,
    { 'Retry-After': String(wait) },
  );
}
