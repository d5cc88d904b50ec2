import { z } from 'zod';
import { listEnvelopeSchema, pageQueryShape } from '../../kernel/pagination.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import { STORE_FLAGS, type StoreHealth } from '../stores/health/store-health.ts';

const tags = ['Back-office'];

export const storeHealthSchema = z.object({
  id: z.string(),
  resellerId: z.string(),
  name: z.string(),
  platform: z.string(),
  externalId: z.string(),
  status: z.enum(['connected', 'disconnected']),
  testMode: z.boolean(),
  lastWebhookAt: z.string().nullable().meta({ description: 'When the last webhook of the store was received.' }),
  lastPolledAt: z.string().nullable().meta({ description: 'When the last poll of the store succeeded.' }),
  ingestLagSeconds: z
    .number()
    .int()
    .meta({ description: 'Age of the oldest received webhook not yet processed (0: none waits).' }),
  last24h: z
    .object({ placed: z.number().int(), skipped: z.number().int(), failed: z.number().int() })
    .meta({ description: 'Store orders of the last 24 h by outcome.' }),
  lastError: z.string().nullable().meta({ description: 'The last error the platform answered.' }),
  notices: z.array(z.string()).meta({
    description:
      "What the store's platform asks of the merchant (an authorisation to renew, a permission missing: reconnect); as on GET /stores/{id}.",
  }),
  tokenExpiresAt: z.string().nullable().meta({ description: 'When credentials that cannot renew themselves expire.' }),
  flags: z
    .array(z.enum(STORE_FLAGS as [string, ...string[]]))
    .meta({ description: 'Why the store needs a look (empty: healthy).' }),
  createdAt: z.string(),
});

/** The operators' store health list (the JSON of the console's stores page). */
export function adminStoreRoutes(deps: { health: StoreHealth }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/stores',
      operationId: 'listStoreHealth',
      summary:
        'Connected stores with their health: last webhook, last poll, ingest lag, 24 h outcomes, last error, token expiry, flags',
      tags,
      auth: 'admin',
      query: z.strictObject({
        ...pageQueryShape,
        platform: z.string().min(1).max(64).optional().meta({ description: 'Only stores of this platform.' }),
        reseller: z.string().min(1).max(64).optional().meta({ description: 'Only stores of this reseller (id).' }),
        state: z
          .enum(['connected', 'disconnected'])
          .optional()
          .meta({ description: 'Only connected or disconnected stores.' }),
      }),
      responses: {
        200: { description: 'A page of stores, newest first', schema: listEnvelopeSchema(storeHealthSchema) },
      },
      errors: [{ status: 400, code: 'invalid_request', description: 'A filter or the cursor is not valid.' }],
      handle: async ({ query }) => ({
        status: 200,
        body: await deps.health.list({
          platform: query.platform,
          resellerId: query.reseller,
          status: query.state,
          limit: query.limit,
          cursor: query.cursor,
        }),
      }),
    }),
  ];
}
