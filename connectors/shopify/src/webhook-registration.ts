import type { ConnectorLogger } from '@print-api/connector-kit';
import { SUBSCRIBED_TOPICS } from './config.ts';
import { assertNoUserErrors, type ShopifyClient } from './shopify-client.ts';

export const LIST_SUBSCRIPTIONS = `query OurWebhookSubscriptions($uri: String!) {
  webhookSubscriptions(first: 50, uri: $uri) { nodes { id topic uri } }
}`;

export const CREATE_SUBSCRIPTION = `mutation SubscribeWebhook($topic: WebhookSubscriptionTopic!, $uri: String!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: { uri: $uri, format: JSON }) {
    webhookSubscription { id topic uri }
    userErrors { field message }
  }
}`;

interface Subscription {
  id: string;
  topic: string;
  uri: string;
}

/**
 * Subscribes the store's order topics and `app/uninstalled` to `callbackUrl` (`uri`, API
 * 2025-04+), skipping topics already subscribed there, so a reconnect adds nothing twice.
 * The compliance topics are not subscribable per store: they are part of the app's
 * configuration (see the README).
 */
export async function registerStoreWebhooks(
  client: ShopifyClient,
  callbackUrl: string,
  logger: ConnectorLogger,
): Promise<string[]> {
  const existing = await client.graphql<{ webhookSubscriptions: { nodes: Subscription[] } }>(LIST_SUBSCRIPTIONS, {
    uri: callbackUrl,
  });
  const have = new Set(existing.webhookSubscriptions.nodes.filter((s) => s.uri === callbackUrl).map((s) => s.topic));
  const created: string[] = [];
  for (const topic of SUBSCRIBED_TOPICS) {
    if (have.has(topic)) continue;
    const data = await client.graphql<{
      webhookSubscriptionCreate: {
        webhookSubscription: Subscription | null;
        userErrors: Array<{ field: string[] | null; message: string }>;
      };
    }>(CREATE_SUBSCRIPTION, { topic, uri: callbackUrl });
    assertNoUserErrors(data.webhookSubscriptionCreate.userErrors, `subscribe ${topic}`);
    created.push(topic);
  }
  logger.info('Shopify webhooks registered', { shop: client.shop, created, kept: [...have] });
  return created;
}
