import { RATE_LIMIT_RULE, USER_AGENT_RULE } from './error-catalogue.ts';

/** Where the error reference is served (linked from the description and from /docs). */
export const ERROR_REFERENCE_PATH = '/api/reseller/v1/docs/errors';

/** The reseller API's OpenAPI `info.description`: the rules that hold for every operation. */
export const API_DESCRIPTION = `Print products from the catalogue, sold in your own store, produced and shipped white label
(your name on the parcel, none of ours, no prices).

## A first order
1. **Key**: once your reseller account is approved, create an API key (\`prk_test_…\` for the sandbox, \`prk_live_…\` for real orders). Send it as \`Authorization: Bearer <key>\`.
2. **Product**: \`GET /products\` and \`GET /products/{id}\` give the options a customer sees, with defaults and allowed values.
3. **Price**: \`POST /quotes\` prices lines for a destination country: your discount, the destination's VAT and shipping included, in euro cents.
4. **Order**: \`POST /orders\` with an \`Idempotency-Key\` header places it and pays it at once (wallet first, then your saved card).
5. **Events**: \`POST /webhooks\` registers an https endpoint; each status change arrives signed (see the \`webhooks\` section).

## Sandbox
A \`prk_test_\` key sees its own test orders, wallet, products, stores and webhooks. Test orders are never charged nor printed: a simulator
moves them through PROCESSING, PRINTING, SHIPPED (with tracking) and DELIVERED, sending the same events. For test keys, \`GET /products/{id}\`
lists \`sampleFiles\`: a print-ready PDF per format of the product, served by the service itself
(\`/api/reseller/v1/sample-files/{productId}/{format}.pdf\`). Use such a URL as a line's \`fileUrl\` and a sandbox order completes with no file
host and no internet: the service reads it from memory, nothing is fetched. Live keys cannot use sample files.

## User-Agent
${USER_AGENT_RULE}

## Rate limits
${RATE_LIMIT_RULE}

## Idempotency
\`POST /orders\` requires an \`Idempotency-Key\` (1-255 printable characters, e.g. a UUID). Repeating a request with the same key answers the
first order with 200 and \`duplicate: true\`, never a second order or charge, so retry freely after a timeout. The same key with another
body is 422 \`idempotency_key_reused\`. Keys are kept 30 days per account and mode.

## Lists
Every list answers \`{data, nextCursor, limit, maxLimit, limitCapped, requestedLimit}\`: \`limit\` 1-100 (default 25; more is capped to
100), and \`cursor\` = the previous page's \`nextCursor\`, which is null on the last page.

## Errors
Every error is \`{"error": {"code", "message", "details"?}}\`; branch on \`code\`. The [error reference](${ERROR_REFERENCE_PATH}) lists
every code with its status and what to do (in the repository: \`docs/errors.md\`). Every response carries a \`Request-Id\` header.

## Money
Integer euro cents everywhere; exact unit prices are decimal strings (\`unitNetPrice\`). Line totals are authoritative.`;

/** The tags, in the order a reader meets them, with what each groups. */
export const API_TAGS = [
  { name: 'Account', description: 'Who the calling key belongs to.' },
  {
    name: 'Catalogue',
    description: 'The print products, their options, quantity rules and file requirements, in nl, en, de and fr.',
  },
  { name: 'Quotes', description: 'Prices for lines and a destination country, with discount, VAT and shipping.' },
  { name: 'Orders', description: 'Placing, reading and cancelling orders; supplying print files later.' },
  { name: 'Wallet', description: 'The prepaid balance orders are paid from, and its ledger.' },
  {
    name: 'Reseller products',
    description:
      'Your own SKUs: a catalogue product with fixed options (and a default file), used in orders and by connected stores.',
  },
  {
    name: 'Stores',
    description: 'Connected storefronts (Shopify, WooCommerce, …) whose orders become print orders by themselves.',
  },
  {
    name: 'Webhooks',
    description: 'Endpoints that receive signed events, their delivery log, redelivery and secret rotation.',
  },
  { name: 'Webhook events', description: 'What the service POSTs to your endpoints (the `webhooks` section).' },
];

/** Terms of use of the description itself. */
export const API_LICENSE = {
  name: 'Proprietary: for integrating with this service',
  identifier: 'LicenseRef-Proprietary',
};
