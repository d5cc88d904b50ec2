import type { DetailEntry } from '../error-catalogue.ts';

/** The codes that appear only inside `error.details[].code`, each naming one problem of a 400 or 422. */
export const DETAIL_CATALOGUE: DetailEntry[] = [
  {
    code: 'missing_header',
    under: ['invalid_request'],
    meaning: 'A required header is missing (`Idempotency-Key` on POST /orders).',
  },
  {
    code: 'invalid_header',
    under: ['invalid_request'],
    meaning: 'A header has an invalid value (`Idempotency-Key`: 1-255 printable ASCII characters, no spaces).',
  },
  {
    code: 'nul_character',
    under: ['invalid_request'],
    meaning: 'A NUL (`\\u0000`, `%00`) in a string, key, path or query: text the database cannot store.',
  },
  {
    code: 'unpaired_surrogate',
    under: ['invalid_request'],
    meaning: 'A UTF-16 surrogate without its pair in a string or key.',
  },
  { code: 'too_deep', under: ['invalid_request'], meaning: 'The body is nested deeper than 32 levels.' },
  {
    code: 'invalid_cursor',
    under: ['invalid_request'],
    meaning: 'A `cursor` that is not the `nextCursor` of this list (or has been tampered with).',
  },
  {
    code: 'invalid_type, too_small, too_big, invalid_format, invalid_value, invalid_union, unrecognized_keys, custom',
    under: ['invalid_request'],
    meaning:
      'Validation problems of a field, as the schema names them: wrong type, too short or long, not an e-mail or URL, not one of the allowed values (`allowedValues`), an unknown field.',
  },
  { code: 'unknown_event', under: ['invalid_events'], meaning: 'One unknown event kind; `allowedValues` lists them.' },
  {
    code: 'scheme_not_allowed, invalid_url, address_blocked, dns_failed',
    under: ['invalid_webhook_url'],
    meaning:
      'Why a webhook URL is refused: not https, not a valid URL (or with credentials), a private or reserved address, a host that does not resolve.',
  },
  {
    code: 'linked_store',
    under: ['reseller_product_linked'],
    meaning: 'One connected store (`storeId`, `platform`) a reseller product is linked to.',
  },
  {
    code: 'listing_already_mapped',
    under: ['listing_already_mapped'],
    meaning: 'The link that maps the listing (`linkId`) and its product (`resellerProductId`).',
  },
  {
    code: 'unknown_listing',
    under: ['unknown_listing'],
    meaning: 'The `externalProductId` or `externalVariantId` field.',
  },
  { code: 'card_rejected', under: ['card_rejected'], meaning: 'Back-office: the refused card token field.' },
  { code: 'unsupported_platform', under: ['unsupported_platform'], meaning: 'The `platform` field.' },
  {
    code: 'invalid_options, invalid_option_value, option_conflict, copies_mismatch, run_unavailable, quantity_out_of_range, unpriceable_configuration, unknown_product, unknown_sku, inactive_reseller_product, unsupported_country, invalid_file_url',
    under: ['the same code'],
    meaning:
      'One problem of one line (`line`, `field`); a 422 lists every problem of every line, and its top-level code is the first problem’s.',
  },
];
