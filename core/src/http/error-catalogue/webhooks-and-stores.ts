import type { ErrorEntry } from '../error-catalogue.ts';

/** Webhook endpoints, and stores: connecting, listings, mappings, publishing, ingests. */
export const WEBHOOKS_AND_STORES: ErrorEntry[] = [
  // Webhooks
  {
    code: 'invalid_webhook_url',
    status: [422],
    meaning: 'The endpoint URL is not https, not valid, or its host does not resolve to a public address.',
    action:
      'Give a public https URL. For a receiver on your own machine, use `npm run admin -- listen --forward-to http://localhost:4000/hooks` instead of registering it.',
    example: 'The webhook URL points to a private or reserved network address (10.0.0.7).',
  },
  {
    code: 'invalid_events',
    status: [422],
    meaning: 'An unknown event kind in `events`.',
    action: 'Use the kinds in `details[].allowedValues`, or `["*"]`.',
    example: 'Unknown event kinds; see allowedValues.',
  },
  {
    code: 'webhook_limit_reached',
    status: [422],
    meaning: 'The account has the maximum number of endpoints in this mode.',
    action: 'Delete one; one endpoint can take every event (`["*"]`).',
    example: 'At most 10 webhook endpoints per account and mode; delete one first.',
  },
  // Stores
  {
    code: 'unsupported_platform',
    status: [422],
    meaning:
      'No loaded connector handles this platform in this flow (or the store is not of a platform the operation is for: sandbox orders in a store that is not a sandbox store).',
    action: 'Use a platform of `details[].allowedValues` (the loaded connectors).',
    example: "No enabled connector installs through OAuth at 'ETSY'.",
  },
  {
    code: 'store_credentials_rejected',
    status: [422],
    meaning: 'The platform refused the store credentials.',
    action: 'Check the keys (and their permissions) in the store’s admin and connect again.',
    example: 'WooCommerce said: the consumer key is invalid.',
  },
  {
    code: 'store_install_rejected',
    status: [422],
    meaning: 'The platform or connector refused an OAuth install (code, state or signature).',
    action: 'Start the install again from a new install link.',
    example: 'Shopify said: the HMAC of the callback does not match.',
  },
  {
    code: 'store_not_connectable',
    status: [422],
    meaning:
      'The address is not public, or it is not a store of the platform (or set up in a way the connection cannot use), or the platform connects test stores only (a sandbox store asked for with a live key).',
    action:
      'Give the store’s public https address; the message says what to change. A sandbox store needs a test key (prk_test_…).',
    example:
      'The store address is not public: 192.168.1.20 is a local, private or reserved address, which Print API does not connect to.',
  },
  {
    code: 'store_connected_elsewhere',
    status: [409],
    meaning: 'The store is connected to another reseller account.',
    action: 'Disconnect it there first.',
    example: 'The WOOCOMMERCE store shop.example.nl is already connected to another account.',
  },
  {
    code: 'store_disconnected',
    status: [409],
    meaning: 'The store is disconnected.',
    action: 'Connect it again.',
    example: 'Store sto_01M89QQS7S8BTVEGQNW40W9DB9 is disconnected.',
  },
  {
    code: 'listing_already_mapped',
    status: [409],
    meaning: 'The store listing is mapped to another of your products (`details[].linkId`).',
    action: 'Delete that link (DELETE /stores/{id}/links/{linkId}), then map the listing again.',
    example:
      "The store's listing 412 is mapped to your product BC-CLASSIC-250 already (link lnk_01M89R3A1Y8G2ZK6W4QJ5N7PXB): remove that link first to map it to another product.",
  },
  {
    code: 'unknown_listing',
    status: [422],
    meaning: "The store's synced catalogue has no listing (or variant) with this id.",
    action:
      'Use `externalProductId` (and `externalVariantId`) from GET /stores/{id}/listings; a listing added just now shows after POST /stores/{id}/sync.',
    example:
      "The store's catalogue has no product 9999 (as last synced): use an externalProductId (and externalVariantId) from GET /stores/sto_01M89R2K4H7Q5N3B8VDX0C6TYE/listings, or POST /stores/sto_01M89R2K4H7Q5N3B8VDX0C6TYE/sync first if you added it just now.",
  },
  {
    code: 'store_order_not_found',
    status: [409],
    meaning: 'The platform no longer has the store order being retried.',
    action: 'Nothing to retry; place the order through POST /orders if it is still wanted.',
    example: 'WooCommerce no longer has order 1234.',
  },
  {
    code: 'ingest_not_retryable',
    status: [409],
    meaning:
      'The store order was placed already, cancelled, waits for payment, or was erased on the customer’s request.',
    action: 'Nothing to retry.',
    example: "Store order 1234 was erased on the customer's request.",
  },
  {
    code: 'sync_in_progress',
    status: [409],
    meaning: 'A sync (or scheduled poll) of the store is running.',
    action: 'Wait for it: GET /stores/{id} `lastPolledAt` says when it ended.',
    example: 'A sync of store sto_01M89QQS7S8BTVEGQNW40W9DB9 is under way.',
  },
  {
    code: 'sync_not_supported',
    status: [422],
    meaning: 'The store’s platform cannot be asked for its orders.',
    action: 'Its orders arrive by webhook only.',
    example: 'Wix stores cannot be asked for their orders.',
  },
  {
    code: 'store_rate_limited',
    status: [503],
    meaning: 'The store’s platform asked us to slow down.',
    action: 'Retry after `Retry-After` seconds.',
    example: 'Shopify said: too many requests; try again in 2 s.',
  },
  {
    code: 'store_unreachable',
    status: [502],
    meaning: 'The store’s platform did not answer or failed.',
    action: 'Retry later.',
    example: 'WooCommerce said: the store did not answer within 10 s.',
  },
  {
    code: 'not_supported_by_platform',
    status: [422],
    meaning:
      'The store’s platform offers no publishing here (POST /stores/{id}/listings): TikTok Shop and Amazon, and any connector that does not declare it.',
    action:
      'Do what the message says instead: create the listing on the platform with your product’s SKU (or any), then map it with POST /stores/{id}/links.',
    example:
      'Amazon stores cannot be published to from here. Create the product in Seller Central with your SKU, then map it with POST /stores/{id}/links.',
  },
  {
    code: 'listing_exists',
    status: [409],
    meaning:
      'The reseller product is published to this store already (or its publishing is under way); `details[0].listing` is that listing.',
    action: 'Change it with PATCH /stores/{id}/listings/{listingId}, or remove it with DELETE first.',
    example:
      'BC-CLASSIC-250 is published to store sto_01M89R2K4H7Q5N3B8VDX0C6TYE already as listing pub_01M89R3A0C5T2W8Q6N4K1Z7YHD.',
  },
  {
    code: 'publish_in_progress',
    status: [409],
    meaning: 'The listing is still being published (no answer from the platform recorded yet).',
    action: 'Try again in a moment: GET /stores/{id}/listings/{listingId} shows its status.',
    example: 'Listing pub_01M89R5B7K2W9X4Q6N3T8Z1CVE is still being published: try again in a moment.',
  },
  {
    code: 'listing_rejected',
    status: [422],
    meaning: 'The store’s platform refused the product; the message gives its reason.',
    action:
      'Change what the reason names (a SKU the store already has, an image it cannot load, a platform option) and try again.',
    example: 'WooCommerce refused the product: Invalid or duplicated SKU. (product_invalid_sku)',
  },
  {
    code: 'platform_options_required',
    status: [422],
    meaning:
      'The store has several of something a listing needs (Etsy: shipping profiles, processing profiles, return policies) and none was chosen.',
    action:
      'Publish again with the `platformOptions` key each entry of `details` names (its `field`), set to the id of one of its `choices` (each with its name as the store shows it).',
    example:
      'The Etsy store has several of what a listing needs: choose a shipping profile (platformOptions.shippingProfileId: 190712345 "Standard", 190712346 "Express").',
  },
  {
    code: 'invalid_image_url',
    status: [422],
    meaning: 'An image URL to publish is not a public https address (checked after DNS); `details` names it.',
    action: 'Give public https image URLs the platform can fetch.',
    example: 'imageUrls[1] is refused: 10.0.0.7 is a private or reserved address.',
  },
  {
    code: 'currency_mismatch',
    status: [422],
    meaning: 'The currency given is not the store’s: a price is set in the store’s currency.',
    action: 'Leave `currency` out (the store’s is taken) or give the store’s.',
    example: 'The store sells in EUR, not USD: give priceCents in EUR cents.',
  },
];
