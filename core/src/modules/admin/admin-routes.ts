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
import type { AuditLog } from '../audit/audit-log.ts';
import { auditContextOf } from '../operators/operator-roles.ts';

const tags = ['Back-office'];
const notFound = { status: 404, code: 'not_found', description: 'Unknown reseller or key.' };

/** The dashboard's operations on resellers, keys, wallets and cards (ARCHITECTURE.md §7). */
export function adminAccountRoutes(deps: {
  accounts: AccountsService;
  wallet: WalletService;
  cards: CardsService;
  audit: AuditLog;
}): AnyRoute[] {
  const { accounts, wallet, cards, audit } = deps;
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
      handle: async ({ req, body }) => ({
        status: 201,
        body: {
          data: await accounts.createReseller(
            body,
            audit.hook(auditContextOf(req), (r) => ({
              action: 'reseller.created',
              target: { type: 'reseller', id: r.id },
              changes: { name: r.name, email: r.email, status: r.status, discountPercent: r.discountPercent },
            })),
          ),
        },
      }),
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
        handle: async ({ req, params }) => {
          const status = action === 'approve' ? 'approved' : 'suspended';
          const hook = audit.hook(auditContextOf(req), (r: { id: string }) => ({
            action: `reseller.${status}`,
            target: { type: 'reseller', id: r.id },
            changes: { status },
          }));
          return { status: 200, body: { data: await accounts.setStatus(params.id, status, hook) } };
        },
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
      handle: async ({ req, params, body }) => ({
        status: 201,
        body: {
          data: await accounts.createApiKey(
            params.id,
            body,
            audit.hook(auditContextOf(req), (k) => ({
              action: 'api_key.created',
              target: { type: 'api_key', id: k.id },
              changes: { resellerId: k.resellerId, mode: k.mode, prefix: k.prefix, scopes: k.scopes },
            })),
          ),
        },
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
      handle: async ({ req, params }) => ({
        status: 200,
        body: {
          data: await accounts.revokeApiKey(
            params.id,
            audit.hook(auditContextOf(req), (k) => ({
              action: 'api_key.revoked',
              target: { type: 'api_key', id: k.id },
              changes: { resellerId: k.resellerId, prefix: k.prefix },
            })),
          ),
        },
      }),
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
      handle: async ({ req, params, body }) => {
        await accounts.getReseller(params.id);
        const entry = await wallet.topUp(
          { resellerId: params.id, mode: body.mode, amountCents: body.amountCents, reference: body.reference },
          audit.hook(auditContextOf(req), (e) => ({
            action: 'wallet.topped_up',
            target: { type: 'reseller', id: params.id },
            changes: {
              mode: body.mode,
              amountCents: body.amountCents,
              reference: body.reference ?? null,
              ledgerEntryId: e.id,
              balanceAfterCents: e.balanceAfterCents,
            },
          })),
        );
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
      handle: async ({ req, params, body }) => {
        const reseller = await accounts.getReseller(params.id);
        const card = await cards.saveCard(
          reseller.id,
          reseller.email,
          body.token,
          audit.hook(auditContextOf(req), (c) => ({
            action: 'card.saved',
            target: { type: 'reseller', id: reseller.id },
            changes: { gateway: c.gateway, brand: c.brand, last4: c.last4 },
          })),
        );
        return { status: 200, body: { data: card } };
      },
    }),
  ];
}
