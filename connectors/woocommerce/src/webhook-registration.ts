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
    const wanted =
      w.delivery_url === opts.callbackUrl &&
      (SUBSCRIBED_TOPICS as readonly string[]).includes(w.topic) &&
      !kept.has(w.topic);
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
    const created = await client.createWebhook({
      name: `${WEBHOOK_NAME_PREFIX} ${topic}`,
      topic,
      delivery_url: opts.callbackUrl,
      secret,
    });
    opts.logger.info('WooCommerce webhook created', { topic, webhookId: created.id });
  }
  return { webhookSecret: secret };
}

/**
 * What `repairWebhooks` did: the topics of ours WooCommerce had disabled that it created anew (`replaced`) or, where
 * the store's URL and secret are not known here, set active again (`reenabled`), and those gone it registered again.
 */
export interface WebhookRepair {
  replaced: string[];
  reenabled: string[];
  recreated: string[];
}

/**
 * WooCommerce disables a webhook after more than five failed deliveries in a row and never
 * retries (a database restart answering 503 for a few seconds can do it on a busy store); a
 * merchant may delete one. A disabled one of ours is deleted and created anew (polling has caught
 * up what it missed): set active again it would keep its `failure_count`, and the next failed
 * delivery would disable it at once. Where the store's own webhook URL and secret are not known
 * here it can only be set active again. The topics of ours that are gone are registered again. A
 * webhook the merchant paused stays paused.
 */
export async function repairWebhooks(
  client: WooCommerceClient,
  opts: {
    appWebhookUrl: string;
    callbackUrl?: string | undefined;
    secret?: string | undefined;
    logger: ConnectorLogger;
  },
): Promise<WebhookRepair> {
  const prefix = ourWebhookPrefix(opts.appWebhookUrl);
  const ours = (await client.listWebhooks()).filter((w) =>
    opts.callbackUrl ? w.delivery_url === opts.callbackUrl : w.delivery_url.startsWith(prefix),
  );
  const reenabled: string[] = [];
  const replaced: string[] = [];
  const canCreate = Boolean(opts.callbackUrl && usableSecret(opts.secret));
  for (const w of ours.filter((h) => h.status === 'disabled')) {
    if (canCreate && (SUBSCRIBED_TOPICS as readonly string[]).includes(w.topic)) {
      await client.deleteWebhook(w.id);
      const created = await client.createWebhook({
        name: `${WEBHOOK_NAME_PREFIX} ${w.topic}`,
        topic: w.topic,
        delivery_url: opts.callbackUrl!,
        secret: opts.secret!,
      });
      replaced.push(w.topic);
      opts.logger.warn('WooCommerce had disabled our webhook after failed deliveries; created anew', {
        webhookId: created.id,
        disabledWebhookId: w.id,
        topic: w.topic,
      });
      continue;
    }
    await client.updateWebhook(w.id, { status: 'active' });
    reenabled.push(w.topic);
    opts.logger.warn('WooCommerce had disabled our webhook after failed deliveries; re-enabled', {
      webhookId: w.id,
      topic: w.topic,
    });
  }
  const recreated: string[] = [];
  if (canCreate) {
    const present = new Set(ours.map((w) => w.topic));
    for (const topic of SUBSCRIBED_TOPICS.filter((t) => !present.has(t))) {
      const created = await client.createWebhook({
        name: `${WEBHOOK_NAME_PREFIX} ${topic}`,
        topic,
        delivery_url: opts.callbackUrl!,
        secret: opts.secret!,
      });
      recreated.push(topic);
      opts.logger.warn('Our WooCommerce webhook was gone; registered again', { webhookId: created.id, topic });
    }
  }
  return { replaced, reenabled, recreated };
}

/** The store's notice for a repair (none when nothing was repaired). */
export function repairNotice(repair: WebhookRepair, now: Date): string | undefined {
  const when = now.toISOString().slice(0, 16).replace('T', ' ');
  const parts = [
    repair.replaced.length
      ? `WooCommerce had disabled the store's webhooks for ${repair.replaced.join(', ')} after repeated failed deliveries: created anew (set active again, they would keep their failure count and be disabled by the next failed delivery)`
      : '',
    repair.reenabled.length
      ? `WooCommerce had disabled the store's webhooks for ${repair.reenabled.join(', ')} after repeated failed deliveries: set active again`
      : '',
    repair.recreated.length
      ? `the store's webhooks for ${repair.recreated.join(', ')} were gone: registered again`
      : '',
  ].filter(Boolean);
  if (parts.length === 0) return undefined;
  const text = parts.join('; ');
  return `${text[0]!.toUpperCase()}${text.slice(1)} on ${when} UTC. Orders in between were caught up by polling.`;
}
