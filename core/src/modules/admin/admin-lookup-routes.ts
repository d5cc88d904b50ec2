import { z } from 'zod';
import { listEnvelopeSchema, pageQueryShape, type CursorCodec } from '../../kernel/pagination.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import type { AccountsService } from '../accounts/accounts-service.ts';
import { orderSchemas } from '../orders/orders-schemas.ts';
import type { OrdersService } from '../orders/orders-service.ts';
import { ingestSchema, storeSchema } from '../stores/stores-schemas.ts';
import type { StoresService } from '../stores/stores-service.ts';
import { ledgerEntrySchema } from '../wallet/wallet-schemas.ts';
import type { WalletService } from '../wallet/wallet-service.ts';
import { deliveriesQueryShape, webhookDeliverySchema, webhookEndpointSchema } from '../webhooks/webhooks-schemas.ts';
import type { WebhookDeliveriesService } from '../webhooks/webhook-deliveries-service.ts';
import type { WebhookEndpointsService } from '../webhooks/webhook-endpoints-service.ts';
import { resellerSchema } from './admin-schemas.ts';

const tags = ['Back-office'];
const resellerParams = z.object({ id: z.string().min(1).max(64) });
const modeQuery = {
  mode: z
    .enum(['live', 'test'])
    .default('live')
    .meta({ description: 'Which side of the account: live (default) or the sandbox (test).' }),
};
const unknownReseller = { status: 404, code: 'not_found', description: 'Unknown reseller.' };

/**
 * The back-office's lists and lookups (the CLI's `resellers`, `orders`, `wallet`, `webhooks`,
 * `deliveries`, `stores`, `ingests`): the reseller API's own services, asked on behalf of the
 * reseller and mode named in the path and query.
 */
export function adminLookupRoutes(deps: {
  accounts: AccountsService;
  orders: OrdersService;
  wallet: WalletService;
  endpoints: WebhookEndpointsService;
  deliveries: WebhookDeliveriesService;
  /** The stores' services by job: connections (the list) and ingests. */
  stores: Pick<StoresService, 'connections' | 'ingests'>;
  cursors: CursorCodec;
  /** The loaded connectors' platforms: order sources besides the spec's. */
  sources: readonly string[];
}): AnyRoute[] {
  const { accounts } = deps;
  const { orderView, listQuery } = orderSchemas(deps.sources);
  return [
    defineRoute({
      method: 'get',
      path: '/resellers',
      operationId: 'listResellers',
      summary: 'List reseller accounts, newest first, with search',
      tags,
      auth: 'admin',
      query: z.strictObject({
        ...pageQueryShape,
        q: z
          .string()
          .trim()
          .min(1)
          .max(200)
          .optional()
          .meta({ description: 'An exact reseller id, or part of the name or e-mail (case-insensitive).' }),
        status: z
          .enum(['pending', 'approved', 'suspended'])
          .optional()
          .meta({ description: 'Only accounts in this status.' }),
      }),
      responses: { 200: { description: 'A page of resellers', schema: listEnvelopeSchema(resellerSchema) } },
      handle: async ({ query }) => ({ status: 200, body: await accounts.listResellers(deps.cursors, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/resellers/{id}/orders',
      operationId: 'listResellerOrders',
      summary: "List a reseller's orders (by state, status, external id), newest first",
      tags,
      auth: 'admin',
      params: resellerParams,
      query: listQuery.extend(modeQuery),
      responses: { 200: { description: 'A page of orders', schema: listEnvelopeSchema(orderView) } },
      errors: [unknownReseller],
      handle: async ({ params, query }) => {
        await accounts.getReseller(params.id);
        const { mode, ...filters } = query;
        return { status: 200, body: await deps.orders.list({ resellerId: params.id, mode }, filters) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/orders/{id}',
      operationId: 'getAnyOrder',
      summary: 'Get any order by id, with its reseller and mode',
      tags,
      auth: 'admin',
      params: z.object({ id: z.string().min(1).max(64) }),
      responses: {
        200: {
          description: 'The order',
          schema: z.object({ data: orderView.extend({ resellerId: z.string(), mode: z.enum(['live', 'test']) }) }),
        },
      },
      errors: [{ status: 404, code: 'not_found', description: 'Unknown order.' }],
      handle: async ({ params }) => ({ status: 200, body: { data: await deps.orders.getById(params.id) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/resellers/{id}/wallet',
      operationId: 'getResellerWallet',
      summary: "A reseller's wallet (live or test): balance and ledger, newest first",
      tags,
      auth: 'admin',
      params: resellerParams,
      query: z.strictObject({ ...pageQueryShape, ...modeQuery }),
      responses: {
        200: {
          description: 'The wallet',
          schema: z.object({
            data: z.object({
              mode: z.enum(['live', 'test']),
              balanceCents: z.number().int(),
              currency: z.literal('EUR'),
              entries: listEnvelopeSchema(ledgerEntrySchema),
            }),
          }),
        },
      },
      errors: [unknownReseller],
      handle: async ({ params, query }) => {
        await accounts.getReseller(params.id);
        const { mode, ...page } = query;
        return { status: 200, body: { data: { mode, ...(await deps.wallet.statement(params.id, mode, page)) } } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/resellers/{id}/webhooks',
      operationId: 'listResellerWebhooks',
      summary: "List a reseller's webhook endpoints (live or test)",
      tags,
      auth: 'admin',
      params: resellerParams,
      query: z.strictObject({ ...pageQueryShape, ...modeQuery }),
      responses: { 200: { description: 'A page of endpoints', schema: listEnvelopeSchema(webhookEndpointSchema) } },
      errors: [unknownReseller],
      handle: async ({ params, query }) => {
        await accounts.getReseller(params.id);
        const { mode, ...page } = query;
        return { status: 200, body: await deps.endpoints.list({ resellerId: params.id, mode }, page) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/resellers/{id}/webhooks/{endpointId}/deliveries',
      operationId: 'listResellerWebhookDeliveries',
      summary: "The deliveries of one of a reseller's webhook endpoints, newest first, with their attempts",
      tags,
      auth: 'admin',
      params: resellerParams.extend({ endpointId: z.string().min(1).max(64) }),
      query: z.strictObject({ ...pageQueryShape, ...deliveriesQueryShape, ...modeQuery }),
      responses: { 200: { description: 'A page of deliveries', schema: listEnvelopeSchema(webhookDeliverySchema) } },
      errors: [{ status: 404, code: 'not_found', description: 'Unknown reseller or endpoint (in that mode).' }],
      handle: async ({ params, query }) => {
        const { mode, ...rest } = query;
        return {
          status: 200,
          body: await deps.deliveries.list({ resellerId: params.id, mode }, params.endpointId, rest),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/resellers/{id}/stores',
      operationId: 'listResellerStores',
      summary: "List a reseller's connected (and disconnected) stores",
      tags,
      auth: 'admin',
      params: resellerParams,
      query: z.strictObject({ ...pageQueryShape, ...modeQuery }),
      responses: { 200: { description: 'A page of stores', schema: listEnvelopeSchema(storeSchema) } },
      errors: [unknownReseller],
      handle: async ({ params, query }) => {
        await accounts.getReseller(params.id);
        const { mode, ...page } = query;
        return { status: 200, body: await deps.stores.connections.list({ resellerId: params.id, mode }, page) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/resellers/{id}/stores/{storeId}/ingests',
      operationId: 'listResellerStoreIngests',
      summary: "A store's ingests: every store order seen and what became of it",
      tags,
      auth: 'admin',
      params: resellerParams.extend({ storeId: z.string().min(1).max(64) }),
      query: z.strictObject({
        ...pageQueryShape,
        ...modeQuery,
        status: ingestSchema.shape.status
          .or(z.literal('skipped'))
          .optional()
          .meta({ description: 'Only ingests with this outcome.' }),
      }),
      responses: { 200: { description: 'A page of ingests', schema: listEnvelopeSchema(ingestSchema) } },
      errors: [{ status: 404, code: 'not_found', description: 'Unknown reseller or store.' }],
      handle: async ({ params, query }) => {
        const { mode, ...rest } = query;
        return {
          status: 200,
          body: await deps.stores.ingests.listIngests({ resellerId: params.id, mode }, params.storeId, rest),
        };
      },
    }),
  ];
}
