/**
 * A `Retry-After` header as a wait in ms: delay-seconds (`120`; Shopify writes `2.0`) or an
 * HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`, measured from `now`, never negative). Null when
 * absent or unreadable: the answer then carries no wait to honour.
 */
export function retryAfterMs(header: string | undefined, now: number): number | null {
  const value = header?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // Only an HTTP date: Date.parse also reads bare numbers and other shapes we must not guess at.
  if (!/^[A-Za-z]{3},? /.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
