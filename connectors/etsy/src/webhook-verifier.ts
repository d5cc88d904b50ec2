import {
  settingVariable,
  verifyStandardWebhook,
  type InboundWebhook,
  type WebhookVerdict,
} from '@print-api/connector-kit';
import type { EtsySettings } from './config.ts';
import { payloadOf } from './webhook-content.ts';

/**
 * Standard Webhooks: `webhook-id`, `webhook-timestamp` (5-minute tolerance), `webhook-signature` (`v1,<base64>`,
 * several possible).
 */
export function verifyEtsyWebhook(req: InboundWebhook, settings: EtsySettings, now: Date): WebhookVerdict {
  if (!settings.webhookSecret?.length)
    return {
      ok: false,
      reason: `Etsy webhooks are not accepted: ${settingVariable('ETSY', 'webhookSecret')} is not set`,
    };
  const verdict = verifyStandardWebhook({
    headers: req.headers,
    rawBody: req.rawBody,
    secret: settings.webhookSecret,
    now,
  });
  if (!verdict.ok) return verdict;
  const p = payloadOf(req);
  return {
    ok: true,
    topic: p?.eventType ?? 'unknown',
    eventId: verdict.id,
    occurredAt: verdict.timestamp.toISOString(),
  };
}
