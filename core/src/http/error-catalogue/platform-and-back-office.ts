import type { ErrorEntry } from '../error-catalogue.ts';

/** What platforms and merchants' browsers see on /connectors/..., and the back-office's own codes (/admin/v1). */
export const PLATFORM_AND_BACK_OFFICE: ErrorEntry[] = [
  // Platform-facing routes (/connectors/...): what platforms and merchants' browsers see
  {
    code: 'invalid_signature',
    status: [401],
    meaning: 'A platform webhook at /connectors/… whose signature is missing, forged or stale; nothing is stored.',
    action: 'Platforms only: check the app secret the platform signs with.',
    example: 'The HMAC signature does not match.',
  },
  {
    code: 'notification_not_verified',
    status: [412],
    meaning:
      "A platform notification to a connector's own endpoint (eBay's account deletion) whose signature does not verify; nothing is done.",
    action: 'Platforms only: eBay signs with the key its Notification API serves; nothing to do for a reseller.',
    example: 'The X-EBAY-SIGNATURE does not verify with the key eBay serves for it.',
  },
  {
    code: 'install_not_started',
    status: [400],
    meaning: 'An OAuth callback arrived in a browser with no install in progress (or it expired).',
    action: 'Open the install link again.',
    example: 'No install is in progress in this browser (or it expired): open your install link again.',
  },
  {
    code: 'unknown_install_link',
    status: [404],
    meaning: 'The install link is unknown or expired.',
    action: 'Ask for a new one (POST /stores/install-links).',
    example: 'This install link is unknown or has expired: ask for a new one.',
  },
  {
    code: 'unknown_credential_request',
    status: [404],
    meaning: 'The key-issuing request is unknown or expired.',
    action: 'Start again (POST /stores/credential-requests).',
    example: 'This connection request is unknown or has expired.',
  },
  // Back-office only (/admin/v1)
  {
    code: 'card_rejected',
    status: [422],
    meaning: 'Back-office: the card gateway refused the card token.',
    action: 'Ask for another card.',
    example: 'Your card was declined.',
  },
  {
    code: 'illegal_transition',
    status: [409],
    meaning: 'Back-office: the order cannot move to that production status from where it is.',
    action: 'Report the next status in order: PROCESSING, PRINTING, SHIPPED, DELIVERED.',
    example: 'DELIVERED cannot follow PAID.',
  },
  {
    code: 'invalid_production_status',
    status: [422],
    meaning: 'Back-office: a production report with a status production cannot report.',
    action: 'Report PROCESSING, PRINTING, SHIPPED or DELIVERED.',
    example: 'Production can report PROCESSING, PRINTING, SHIPPED or DELIVERED, not PAID.',
  },
  {
    code: 'line_not_awaiting_conversion',
    status: [409],
    meaning: 'Back-office: a conversion was confirmed for a line that does not wait for one.',
    action: 'Only lines with fileStatus needs_conversion.',
    example: 'Line 0 of order ord_01M89QQS8PF0R454XXXZVC09H9 does not wait for a conversion (file status ok).',
  },
];
