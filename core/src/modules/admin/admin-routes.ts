import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import type { AccountsService } from '../accounts/accounts-service.ts';
import type { CardsService } from '../payments/cards-service.ts';
import type { WalletService } from '../wallet/wallet-service.ts';
import {
  apiKeySchema,
  cardBody,
  cardSchema,
  createApiKeyBody,
  createResellerBody,
  idParams,
  resellerSchema,
  topUpBody,
} from './admin-schemas.ts';
import { ledgerEntrySchema } from '../wallet/wallet-schemas.ts';

const tags = ['Back-office'];
const notFound = { status: 404, code: 'not_found', description: 'Unknown reseller or key.' };

/** The dashboard's operations on resellers, keys, wallets and cards (ARCHITECTURE.md §7). */
export function adminAccountRoutes(deps: {
  accounts: AccountsService;
  wallet: WalletService;
  cards: CardsService;
}): AnyRoute[] {
  const { accounts, wallet, cards } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/resellers',
      operationId: 'createReseller',
      summary: 'Create a reseller account (pending until approved)',
      tags,
      auth: 'admin',
      body: createResellerBody,
      responses: { 201: { description: 'Created', schema: z.object({ data: resellerSchema }) } },
      handle: async ({ body }) => ({ status: 201, body: { data: await accounts.createReseller(body) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/resellers/{id}',
      operationId: 'getReseller',
      summary: 'Get a reseller account',
      tags,
      auth: 'admin',
      params: idParams,
      responses: { 200: { description: 'The reseller', schema: z.object({ data: resellerSchema }) } },
      errors: [notFound],
      handle: async ({ params }) => ({ status: 200, body: { data: await accounts.getReseller(params.id) } }),
    }),
    ...(['approve', 'suspend'] as const).map((action) =>
      defineRoute({
        method: 'post',
        path: `/resellers/{id}/${action}`,
        operationId: `${action}Reseller`,
        summary:
          action === 'approve'
            ? 'Approve a reseller account'
            : 'Suspend a reseller account (its keys stop working: 403)',
        tags,
        auth: 'admin',
        params: idParams,
        responses: { 200: { description: 'The reseller', schema: z.object({ data: resellerSchema }) } },
        errors: [notFound],
        handle: async ({ params }) => ({
          status: 200,
          body: { data: await accounts.setStatus(params.id, action === 'approve' ? 'approved' : 'suspended') },
        }),
      }),
    ),
    defineRoute({
      method: 'post',
      path: '/resellers/{id}/api-keys',
      operationId: 'createApiKey',
      summary: 'Create an API key; the full key is returned only here',
      description: 'Without `scopes` the key has every scope; with `scopes: []` it has none and can call only GET /me.',
      tags,
      auth: 'admin',
      params: idParams,
      body: createApiKeyBody,
      responses: {
        201: { description: 'Created', schema: z.object({ data: apiKeySchema.extend({ key: z.string() }) }) },
      },
      errors: [
        notFound,
        {
          status: 403,
          code: 'account_not_approved',
          description: 'Only an approved reseller account can create keys.',
        },
      ],
      handle: async ({ params, body }) => ({
        status: 201,
        body: { data: await accounts.createApiKey(params.id, body) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/resellers/{id}/api-keys',
      operationId: 'listApiKeys',
      summary: "List a reseller's API keys (prefixes only)",
      tags,
      auth: 'admin',
      params: idParams,
      responses: { 200: { description: 'Keys', schema: z.object({ data: z.array(apiKeySchema) }) } },
      handle: async ({ params }) => {
        await accounts.getReseller(params.id);
        return { status: 200, body: { data: await accounts.listApiKeys(params.id) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api-keys/{id}',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key (further use gives 401)',
      tags,
      auth: 'admin',
      params: idParams,
      responses: { 200: { description: 'Revoked', schema: z.object({ data: apiKeySchema }) } },
      errors: [notFound],
      handle: async ({ params }) => ({ status: 200, body: { data: await accounts.revokeApiKey(params.id) } }),
    }),
    defineRoute({
      method: 'post',
      path: '/resellers/{id}/wallet/top-ups',
      operationId: 'topUpWallet',
      summary: "Credit a reseller's wallet (orders waiting for funds are released, oldest first)",
      tags,
      auth: 'admin',
      params: idParams,
      body: topUpBody,
      responses: {
        201: {
          description: 'The ledger entry, with the wallet it credited (`mode`: live or test)',
          schema: z.object({ data: ledgerEntrySchema.extend({ mode: z.enum(['live', 'test']) }) }),
        },
      },
      errors: [notFound],
      handle: async ({ params, body }) => {
        await accounts.getReseller(params.id);
        const entry = await wallet.topUp({
          resellerId: params.id,
          mode: body.mode,
          amountCents: body.amountCents,
          reference: body.reference,
        });
        return { status: 201, body: { data: { ...entry, mode: body.mode } } };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/resellers/{id}/card',
      operationId: 'saveCard',
      summary: "Save the reseller's card from a gateway token (sandbox: tok_visa, tok_chargeDeclined)",
      tags,
      auth: 'admin',
      params: idParams,
      body: cardBody,
      responses: { 200: { description: 'The saved card', schema: z.object({ data: cardSchema }) } },
      errors: [notFound, { status: 422, code: 'card_rejected', description: 'The gateway refused the token.' }],
      handle: async ({ params, body }) => {
        const reseller = await accounts.getReseller(params.id);
        return { status: 200, body: { data: await cards.saveCard(reseller.id, reseller.email, body.token) } };
      },
    }),
  ];
}
