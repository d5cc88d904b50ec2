import type { ErrorEntry } from '../error-catalogue.ts';

/** Quotes, orders and reseller products (a 422's top-level code is its first problem's). */
export const ORDERS: ErrorEntry[] = [
  // Quotes, orders, reseller products (422; the first problem's code is the top-level code)
  {
    code: 'invalid_options',
    status: [422],
    meaning:
      'An option key that is unknown for the product or set automatically by the service (print process, sheet format, bundling, packaging).',
    action: 'Send only the keys in `details[].allowedKeys` (those of GET /products/{id} `options`).',
    example: "Line 0: 'sheet' is not an option of business-cards; allowed keys: paper, sides, finish, corners.",
  },
  {
    code: 'invalid_option_value',
    status: [422],
    meaning: 'An option value the product does not offer.',
    action: 'Use one of `details[].allowedValues`.',
    example: "Line 0: 'mc500' is not a value of paper; allowed: mc350, mc400, uncoated300, recycled300.",
  },
  {
    code: 'option_conflict',
    status: [422],
    meaning: 'A combination of options the print partner does not offer (or not at the moment).',
    action: 'Change one of the options `details[].conflicts` names to one of its `compatibleValues`.',
    example: 'Line 0: spot-uv is not offered on uncoated paper.',
  },
  {
    code: 'copies_mismatch',
    status: [422],
    meaning: '`options.copies` was sent and differs from `quantity` (quantity is always the number of pieces).',
    action: 'Leave `options.copies` out; put the run in `quantity`.',
    example: 'Line 0: options.copies (500) must equal quantity (250); leave it out.',
  },
  {
    code: 'run_unavailable',
    status: [422],
    meaning: 'A run-priced product cannot be made in that quantity for this configuration.',
    action: 'Use `details[].nearestQuantity` or one of `allowedValues` (the product’s runs).',
    example: 'Line 0: 300 is not a run of business-cards; the nearest is 250.',
  },
  {
    code: 'quantity_out_of_range',
    status: [422],
    meaning: 'A piece-priced quantity below the product’s minimum or above its maximum.',
    action: 'Stay within GET /products/{id} `quantity.min`–`max`.',
    example: 'Line 0: canvas-prints takes 1 to 100 pieces.',
  },
  {
    code: 'unpriceable_configuration',
    status: [422],
    meaning: 'A combination the print partner cannot price.',
    action: 'Change the options named in `details`; the product’s `restrictions` list such combinations.',
    example: 'Line 0: this configuration cannot be priced.',
  },
  {
    code: 'unknown_product',
    status: [422],
    meaning: 'No catalogue product has this id or slug.',
    action: 'Use an `id` from GET /products.',
    example: "There is no product 'buisness-cards'.",
  },
  {
    code: 'unknown_sku',
    status: [422],
    meaning: 'No reseller product of this key’s mode has this SKU.',
    action: 'Create it with POST /reseller-products (in the same mode), or use `productId`.',
    example: "Line 0: there is no reseller product with SKU 'BC-CLASSIC-250'.",
  },
  {
    code: 'inactive_reseller_product',
    status: [422],
    meaning: 'The SKU’s reseller product is inactive.',
    action: 'Activate it (PATCH /reseller-products/{id} `{"active": true}`).',
    example: "Line 0: reseller product 'BC-CLASSIC-250' is inactive.",
  },
  {
    code: 'unsupported_country',
    status: [422],
    meaning: 'The destination country is not shipped to.',
    action: 'Use an ISO 3166-1 alpha-2 code of a country the catalogue ships to (EU countries, GB, CH, NO, …).',
    example: "Line 0: we do not ship to 'US'.",
  },
  {
    code: 'invalid_file_url',
    status: [422],
    meaning:
      'A print file URL is unusable: not https, with a user name or password, a private or reserved address, a host that does not resolve or answer, an error status, or a file that is not a PDF, PNG or JPG (EPS, AI, PS and SVG only by extension). A sample file used with a live key.',
    action:
      'Fix the URL `details[].message` explains for that `line`; the file must be publicly reachable over https. In test mode use a sample file from GET /products/{id} `sampleFiles`.',
    example: 'Line 0: the file is an HTML document, not a PDF, PNG or JPG',
  },
  {
    code: 'idempotency_key_reused',
    status: [422],
    meaning: 'The Idempotency-Key was used before (30 days, per account and mode) with a different body.',
    action: 'Use a new key for a new order; resend the exact first body to get the first order back.',
    example: 'The Idempotency-Key was used for a different request.',
  },
  {
    code: 'order_not_cancellable',
    status: [409],
    meaning: 'The order is in production, shipped or already cancelled.',
    action: 'Nothing to do through the API: production cannot be stopped.',
    example: 'Order ord_01M89QQS8PF0R454XXXZVC09H9 is PRINTING; only PENDING or PAID orders can be cancelled.',
  },
  {
    code: 'payment_in_progress',
    status: [409],
    meaning: 'A card charge of the order is under way.',
    action: 'Retry in a few seconds.',
    example: 'A card charge of order ord_01M89QQS8PF0R454XXXZVC09H9 is under way; retry shortly.',
  },
  {
    code: 'order_not_awaiting_file',
    status: [409],
    meaning: 'A file was supplied for an order that does not wait for one.',
    action: 'Only orders in AWAITING_FILE take PUT /orders/{id}/lines/{line}/file.',
    example: 'Order ord_01M89QQS8PF0R454XXXZVC09H9 is SUBMITTED; files can be replaced only while it is AWAITING_FILE.',
  },
  {
    code: 'sku_exists',
    status: [409],
    meaning: 'Another reseller product of this mode has the SKU (case-insensitive).',
    action: 'Choose another SKU, or change the existing product.',
    example: "The SKU 'BC-CLASSIC-250' is taken.",
  },
  {
    code: 'reseller_product_linked',
    status: [409],
    meaning: 'The reseller product is linked to a listing of a connected store (details name the stores).',
    action: 'Unlink it (DELETE /stores/{id}/links/{linkId}) or disconnect the store first.',
    example: 'BC-CLASSIC-250 is linked to a connected store; unlink it first.',
  },
];
