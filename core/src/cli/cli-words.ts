import { CliError } from './admin-client.ts';

/**
 * `--amount` of `top-up`: euro cents as a whole number (`2500` is €25.00), or euros with a
 * decimal point or comma (`12.50`, `12,50`, `€12.50`). Anything else is refused saying what it
 * takes. Answers the cents.
 */
export function amountCents(text: string): number {
  const s = text.trim().replace(/^€\s*|\s*(€|eur)$/gi, '');
  const euros = /^(\d{1,9})[.,](\d{1,2})$/.exec(s);
  if (euros) return Number(euros[1]) * 100 + Number(euros[2]!.padEnd(2, '0'));
  if (/^\d{1,11}$/.test(s) && !/[€]|eur/i.test(text)) return Number(s);
  if (/^\d{1,9}$/.test(s)) return Number(s) * 100;
  throw new CliError(
    `--amount takes euro cents (2500 is €25.00) or euros with a decimal point (25.00 or 25,00); '${text}' is neither`,
    2,
  );
}

/** Cents as a person reads them: 1250 → '€12.50'. */
export function euros(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  return `${sign}€${(Math.abs(cents) / 100).toFixed(2)}`;
}

/**
 * The event stream refused `listen` (`status`, the API's error body): what went wrong in the
 * CLI's words (a key not accepted, a scope missing, no such reseller), not the raw answer.
 */
export function listenRefusal(status: number, bodyText: string, viaApiKey: boolean): string {
  let message: string | undefined;
  try {
    message = (JSON.parse(bodyText) as { error?: { message?: string } }).error?.message;
  } catch {
    // Not the API's shape (a proxy's page): said by its status alone.
  }
  if (status === 401)
    return viaApiKey
      ? 'The API key was not accepted: check --api-key (a key starts prk_live_ or prk_test_, and a revoked key no longer works).'
      : 'The back-office token was not accepted: check ADMIN_TOKEN (or --token).';
  if (status === 403)
    return viaApiKey
      ? 'This API key may not read events: make a key with the events:read scope (or every scope).'
      : `The back-office refused the stream${message ? `: ${message}` : '.'}`;
  if (status === 404) return `No such reseller${message ? `: ${message}` : '.'}`;
  if (status === 429) return 'Too many requests: wait a minute and run listen again.';
  return `The event stream could not be opened (HTTP ${status})${message ? `: ${message}` : '.'}`;
}
