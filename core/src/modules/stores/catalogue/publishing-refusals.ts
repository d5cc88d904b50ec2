import { ConnectorError, PlatformOptionsRequired, type Connector } from '@print-api/connector-kit';
import { Refusal, rejected, wrongState } from '../../../kernel/refusal.ts';
import { DEFAULT_RATE_LIMIT_WAIT_MS } from '../connect/connector-errors.ts';
import type { PublicationRow } from './publication-view.ts';

/** A platform's typed failure of a publishing request in the API's words; anything else as it is. */
export function publishingRefusal(connector: Connector<unknown>, err: unknown): unknown {
  if (!(err instanceof ConnectorError)) return err;
  const name = connector.manifest.displayName;
  if (err instanceof PlatformOptionsRequired)
    return rejected(
      'platform_options_required',
      err.message,
      err.options.map((o) => ({
        field: `platformOptions.${o.option}`,
        code: 'platform_options_required',
        message: `Choose a ${o.label}.`,
        choices: o.choices,
      })),
    );
  switch (err.kind) {
    case 'invalid_payload':
      return rejected(
        'listing_rejected',
        err.message.startsWith(name) ? err.message : `${name} refused the listing: ${err.message}`,
      );
    case 'rate_limited': {
      const seconds = Math.max(1, Math.ceil((err.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS) / 1000));
      return new Refusal('store_rate_limited', `${name} asked us to slow down: try again in ${seconds} s.`, undefined, {
        retryAfter: seconds,
      });
    }
    case 'auth':
      return rejected(
        'store_credentials_rejected',
        `${name} refused the store's credentials: ${err.message}. Connect the store again.`,
      );
    case 'upstream_unavailable':
      return new Refusal(
        'store_unreachable',
        `${name} did not answer: ${err.message}. Try again: the product is never created twice.`,
      );
  }
}

/** A change asked of a listing whose publish has not come back yet. */
export function publishInProgress(row: PublicationRow): Refusal {
  return wrongState('publish_in_progress', `Listing ${row.id} is still being published: try again in a moment.`);
}
