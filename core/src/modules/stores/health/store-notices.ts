import type { Connector, StoreConnection } from '@print-api/connector-kit';
import type { StoreRow } from '../connect/store-connections.ts';

/** How long what a poll repaired (a webhook set active again) stays among the store's notices. */
export const POLL_NOTICE_MS = 7 * 24 * 3600_000;

/**
 * A connected store's notices (`GET /stores/{id}`): what its last poll repaired, for a week,
 * then its connector's reminders (`storeNotices`, from the connection, opened only when asked).
 */
export function storeNotices(
  row: StoreRow,
  connector: Connector<any, any> | undefined,
  connection: () => StoreConnection<unknown>,
  now = new Date(),
): string[] {
  if (row.status !== 'connected') return [];
  const polled =
    row.poll_notice && row.poll_notice_at && now.getTime() - row.poll_notice_at.getTime() < POLL_NOTICE_MS
      ? [row.poll_notice]
      : [];
  try {
    return [...polled, ...(connector?.storeNotices?.(connection(), now) ?? [])];
  } catch {
    return polled;
  }
}
