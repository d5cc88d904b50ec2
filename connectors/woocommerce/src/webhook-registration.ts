import { randomBytes } from 'node:crypto';
import type { ConnectorLogger } from '@print-api/connector-kit';
import { SUBSCRIBED_TOPICS, WEBHOOK_NAME_PREFIX } from './config.ts';
import type { WooCommerceClient } from './woocommerce-client.ts';

/**
 * A fresh per-store secret: 64 hex digits. WordPress HTML-escapes stored webhook secrets
 * (and older WooCommerce versions sign with the escaped form), so a secret must contain
 * nothing escaping could change; and it is never empty (WooCommerce would sign with an
 * empty key, which anyone can forge).
 */
export function newWebhookSecret(): string {
  return randomBytes(32).toString('hex');
}

const usableSecret = (s: string | undefined): s is string => typeof s === 'string' && /^[A-Za-z0-9]{32,}$/.test(s);

/**
 * What the delivery URLs of this deployment's WooCommerce webhooks start with, whichever store
 * they belong to: the per-app webhook URL core hands over (`ctx.webhookUrl()`) and a slash.
 */
export function ourWebhookPrefix(appWebhookUrl: string): string {
  return `${appWebhookUrl.replace(/\/+$/, '')}/`;
}

/**
 * Makes the store deliver `order.created`, `order.updated` and the `product.*` topics to
 * `callbackUrl`, signed with
 * the store's secret (kept on reconnect, so deliveries in flight stay valid). Idempotent:
 * our webhooks already there are updated and re-activated, duplicates and ones pointing at an
 * earlier connection of this store are deleted, missing ones created.
 */
export async function registerOrderWebhooks(
  client: WooCommerceClient,
  opts: { callbackUrl: string; appWebhookUrl: string; currentSecret: string | undefined; logger: ConnectorLogger },
): Promise<{ webhookSecret: string }> {
  const secret = usableSecret(opts.currentSecret) ? opts.currentSecret : newWebhookSecret();
  const prefix = ourWebhookPrefix(opts.appWebhookUrl);
  const ours = (await client.listWebhooks()).filter((w) => w.delivery_url.startsWith(prefix));
  const kept = new Map<string, number>();
  for (const w of ours) {
    const wanted = w.delivery_url === opts.callbackUrl && (SUBSCRIBED_TOPICS as readonly string[]).includes(w.topic) && !kept.has(w.topic);
    if (!wanted) {
      await client.deleteWebhook(w.id);
      continue;
    }
    kept.set(w.topic, w.id);
    await client.updateWebhook(w.id, { secret, status: 'active' });
  }
  for (const topic of SUBSCRIBED_TOPICS) {
    if (kept.has(topic)) continue;
    // WooCommerce pings the delivery URL while creating the webhook: the verifier answers it.
    const created = await client.createWebhook({ name: `${WEBHOOK_NAME_PREFIX} ${topic}`, topic, delivery_url: opts.callbackUrl, secret });
    opts.logger.info('WooCommerce webhook created', { topic, webhookId: created.id });
  }
  return { webhookSecret: secret };
}

/**
 * WooCommerce disables a webhook after more than five failed deliveries in a row and never
 * retries: set ours active again (polling has caught up what they missed).
 */
export async function reactivateDisabledWebhooks(client: WooCommerceClient, appWebhookUrl: string, logger: ConnectorLogger): Promise<number> {
  const prefix = ourWebhookPrefix(appWebhookUrl);
  const disabled = (await client.listWebhooks()).filter((w) => w.status === 'disabled' && w.delivery_url.startsWith(prefix));
  for (const w of disabled) {
    await client.updateWebhook(w.id, { status: 'active' });
    logger.warn('WooCommerce had disabled our webhook after failed deliveries; re-enabled', { webhookId: w.id, topic: w.topic });
  }
  return disabled.length;
}
