import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../../../web/route.ts';
import { BULK_RETRY_MAX, type IngestRetrier } from './ingest-retrier.ts';
import { SYNC_LEASE_MS, type StorePoller } from './store-poller.ts';
import { INGEST_EXAMPLE, STORE_EXAMPLE } from '../stores-examples.ts';
import { tags, ingestSchema, storeId, idParams, notFound } from '../stores-schemas.ts';

/** `POST /stores/{id}/ingests/{ingestId}/retry`: a skipped (or failed) store order ingested again. */
export function retryRoute(retrier: IngestRetrier): AnyRoute {
  return defineRoute({
    method: 'post',
    path: '/stores/{id}/ingests/{ingestId}/retry',
    operationId: 'retryStoreIngest',
    summary: 'Ingest a skipped store order again, once its SKUs are your products',
    description:
      "Fetches the store order again from the platform (or, where the platform cannot be asked, takes the newest delivery of it we stored) and ingests it as if it had just arrived: its lines whose SKUs are now your active products are placed. The idempotency key is the store order's, as on every ingest: never a second print order, and an order already placed is not placed again. Answers the ingest as recorded after.",
    tags,
    auth: 'apiKey',
    scope: 'stores:write',
    params: z.object({
      id: storeId,
      ingestId: z.string().min(1).max(64).meta({
        description: 'Ingest id (`ing_…`), from GET /stores/{id}/ingests.',
        example: 'ing_01M89R4D2F6X8P3K7T5Q9W1NCM',
      }),
    }),
    responses: {
      200: {
        description: 'The ingest after the retry',
        schema: z.object({ data: ingestSchema }),
        example: { data: { ...INGEST_EXAMPLE, attempts: 2 } },
      },
    },
    errors: [
      { status: 404, code: 'not_found', description: 'Unknown store or ingest.' },
      {
        status: 409,
        code: 'ingest_not_retryable',
        description: 'The store order was placed already, cancelled, is waiting for payment or was erased.',
      },
      {
        status: 409,
        code: 'store_order_not_found',
        description:
          'The platform no longer has the order (or, for a platform that cannot be asked, no delivery of it is stored).',
      },
      { status: 409, code: 'store_disconnected', description: 'The store is disconnected.' },
      {
        status: 503,
        code: 'store_rate_limited',
        description:
          "The platform's request budget for this store is spent for now; Retry-After says when to try again.",
      },
    ],
    handle: async ({ auth, params }) => ({
      status: 200,
      body: { data: await retrier.retry(auth, params.id, params.ingestId) },
    }),
  });
}

/** `POST /stores/{id}/ingests/retry`: every skipped store order (of one listing) retried, in the background. */
export function bulkRetryRoute(retrier: IngestRetrier): AnyRoute {
  return defineRoute({
    method: 'post',
    path: '/stores/{id}/ingests/retry',
    operationId: 'retrySkippedStoreIngests',
    summary: 'Retry the skipped store orders, once their listings are mapped or their SKUs are your products',
    description: `Queues a retry of each skipped store order of the store (\`status: skipped\`, as GET /stores/{id}/ingests?status=skipped lists them), or of those with a line of one listing (\`externalProductId\`): the oldest first, at most ${BULK_RETRY_MAX} per request (\`more\`: call again for the rest). Each is retried as POST /stores/{id}/ingests/{ingestId}/retry does it (the order fetched again, the same idempotency key): never a second print order. Watch them in GET /stores/{id}/ingests.`,
    tags,
    auth: 'apiKey',
    scope: 'stores:write',
    params: idParams,
    body: z.strictObject({
      status: z
        .enum(['skipped'])
        .meta({ description: 'Which store orders: `skipped` (nothing placed, a line unmatched).' }),
      externalProductId: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .meta({ description: 'Only the store orders with a line of this listing (store product id) skipped.' }),
    }),
    bodyExample: { status: 'skipped', externalProductId: '412' },
    responses: {
      202: {
        description: 'Queued',
        schema: z.object({
          data: z.object({
            storeId: z.string(),
            status: z.enum(['skipped']),
            externalProductId: z.string().nullable(),
            queued: z.number().int().meta({ description: 'How many store orders were queued for a retry.' }),
            more: z.boolean().meta({ description: 'More skipped orders are left: call again once these are retried.' }),
          }),
        }),
        example: {
          data: { storeId: STORE_EXAMPLE.id, status: 'skipped', externalProductId: '412', queued: 3, more: false },
        },
      },
    },
    errors: [notFound, { status: 409, code: 'store_disconnected', description: 'The store is disconnected.' }],
    handle: async ({ auth, params, body }) => ({
      status: 202,
      body: { data: await retrier.retrySkipped(auth, params.id, { externalProductId: body.externalProductId }) },
    }),
  });
}

/** `POST /stores/{id}/sync`: polls the store now instead of at its next interval. */
export function syncRoute(poller: StorePoller): AnyRoute {
  return defineRoute({
    method: 'post',
    path: '/stores/{id}/sync',
    operationId: 'syncStore',
    summary: 'Ask the store for its orders now, instead of at the next poll',
    description: `Queues a poll of the store's orders changed since the last one (every platform that lists orders; on a platform without webhooks, this is how a new order shows at once). The orders appear in GET /stores/{id}/ingests as they are ingested; \`lastPolledAt\` on the store says when the poll ended. One sync at a time per store: another asked for while one runs is answered 409 (a poll that stops answering frees the store after ${SYNC_LEASE_MS / 60_000} minutes).`,
    tags,
    auth: 'apiKey',
    scope: 'stores:write',
    params: idParams,
    responses: {
      202: {
        description: 'Queued',
        schema: z.object({
          data: z.object({
            storeId: z.string(),
            requestedAt: z.string(),
            pollsAt: z.string().meta({
              description:
                "When the poll calls the platform: now, or, where the platform allows only so many order searches (Amazon: one every 3 minutes, a burst of 20) and the store's are spent, when the next one is allowed (the poll is queued and waits till then).",
            }),
          }),
        }),
        example: {
          data: {
            storeId: STORE_EXAMPLE.id,
            requestedAt: '2026-11-25T10:46:30.018Z',
            pollsAt: '2026-11-25T10:46:30.018Z',
          },
        },
      },
    },
    errors: [
      notFound,
      {
        status: 409,
        code: 'sync_in_progress',
        description: 'A sync (or scheduled poll) of this store runs: try again once it ends.',
      },
      { status: 409, code: 'store_disconnected', description: 'The store is disconnected.' },
      { status: 422, code: 'sync_not_supported', description: "The store's platform cannot be asked for its orders." },
    ],
    handle: async ({ auth, params }) => ({ status: 202, body: { data: await poller.requestSync(auth, params.id) } }),
  });
}
