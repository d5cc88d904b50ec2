import type { ZodType } from 'zod';
import { ConnectorError } from './connector-error.ts';

/** The longest snippet of a value a message quotes (payloads carry personal data; keep it short). */
const MAX_QUOTED = 60;

/**
 * Checks a value a platform sent against `schema`: the parsed value, or
 * `ConnectorError('invalid_payload')` naming what was read (`what`) and the path of the first
 * failing field (`receipts[3].transactions[0].quantity: expected number, received string`).
 * Retrying cannot fix a payload of the wrong shape: the pipeline records it and moves on.
 *
 * @example
 * const receipt = parsePayload(receiptSchema, page.results[0], 'Etsy receipt');
 */
export function parsePayload<T>(schema: ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const first = issues[0];
  const where = first ? fieldPath(first.path) : '';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new ConnectorError(
    'invalid_payload',
    `${what}: ${where ? `${where}: ` : ''}${first?.message ?? 'does not match the expected shape'}${more}`,
    { cause: result.error },
  );
}

/**
 * Parses a JSON text a platform sent (a webhook body, an API answer) and checks it against
 * `schema`, as `parsePayload` does. Text that is not JSON is `invalid_payload` too, quoting its
 * first characters.
 *
 * @example
 * const event = parseJsonPayload(etsyEventSchema, req.rawBody, 'Etsy webhook');
 * // -> { event_type: 'order.paid', resource_url: '…', shop_id: 12345 }
 */
export function parseJsonPayload<T>(schema: ZodType<T>, text: string | Buffer, what: string): T {
  const raw = typeof text === 'string' ? text : text.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    const start = raw.trim().slice(0, MAX_QUOTED);
    throw new ConnectorError(
      'invalid_payload',
      `${what}: not JSON${start ? ` (starts with ${JSON.stringify(start)})` : ' (empty)'}`,
      { cause: err },
    );
  }
  return parsePayload(schema, value, what);
}

/** `orders[0].line_items[2].sku`: a zod issue path as a reader writes it. */
function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}
