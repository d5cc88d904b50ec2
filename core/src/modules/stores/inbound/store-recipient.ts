import type { StoreRecipient } from '@print-api/connector-kit';
import type { Recipient } from '../../orders/orders-tables.ts';

/** The longest company or state POST /orders accepts; a store's longer text is cut there. */
const MAX_OPTIONAL_TEXT = 100;

/**
 * The placed order's recipient from a store order's: the platform's address as the connector
 * mapped it, the country upper case, and the optional company and state (province) kept only
 * when they say something (a platform's empty string is no province).
 */
export function orderRecipient(r: StoreRecipient): Recipient {
  const { company, state, ...address } = r;
  return {
    ...address,
    ...optionalText('company', company),
    ...optionalText('state', state),
    country: r.country.toUpperCase(),
  };
}

function optionalText<K extends 'company' | 'state'>(key: K, value: string | undefined): Partial<Record<K, string>> {
  const text = value?.trim().slice(0, MAX_OPTIONAL_TEXT);
  return text ? ({ [key]: text } as Partial<Record<K, string>>) : {};
}
