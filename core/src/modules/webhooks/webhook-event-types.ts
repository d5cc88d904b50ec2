import { EVENT_TYPES } from '../orders/order-states.ts';
import type { ErrorDetail } from '../../kernel/refusal.ts';

/**
 * Events of connected stores (extensions of the spec): `store.order_skipped`, a store order of
 * which nothing was placed because its SKUs are none of the reseller's products.
 */
export const STORE_EVENT_TYPES = ['store.order_skipped'] as const;

/** What an endpoint may subscribe to: every event kind of spec §6, the stores' events, or `*` for all of them. */
export const SUBSCRIBABLE_EVENTS: readonly string[] = [...EVENT_TYPES, ...STORE_EVENT_TYPES, '*'];

/** The event `POST /webhooks/{id}/test` sends; never fanned out from the outbox, so `*` does not include it. */
export const PING_EVENT = 'ping';

/**
 * Checks and normalises a subscription list: duplicates dropped, `*` alone when present.
 * Returns the problems instead (one per unknown name) so the caller can answer 422.
 */
export function normaliseSubscription(events: string[]): { events: string[] } | { problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  events.forEach((name, i) => {
    if (!SUBSCRIBABLE_EVENTS.includes(name)) {
      problems.push({
        field: `events[${i}]`,
        code: 'unknown_event',
        message: `'${name}' is not an event kind`,
        allowedValues: [...SUBSCRIBABLE_EVENTS],
      });
    }
  });
  if (problems.length > 0) return { problems };
  if (events.includes('*')) return { events: ['*'] };
  return { events: [...new Set(events)] };
}

/** True when an endpoint subscribed to `subscription` wants events of `type`. */
export function isSubscribed(subscription: readonly string[], type: string): boolean {
  if (type === PING_EVENT) return false;
  return subscription.includes('*') || subscription.includes(type);
}
