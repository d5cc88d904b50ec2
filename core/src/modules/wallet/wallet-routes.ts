import { z } from 'zod';
import { EXAMPLE_WALLET } from '../../web/api-examples.ts';
import { openApiComponent } from '../../web/openapi-component.ts';
import { listEnvelopeSchema, pageQueryShape } from '../../kernel/pagination.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import { ledgerEntrySchema } from './wallet-schemas.ts';
import type { WalletService } from './wallet-service.ts';

/** GET /wallet: the balance of the key's mode and its ledger, newest first. */
export function walletRoutes(deps: { wallet: WalletService }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/wallet',
      operationId: 'getWallet',
      summary: 'Balance and ledger entries',
      description:
        'The prepaid balance in euro cents and the ledger (top-ups, order payments, refunds), newest first, paginated with limit and cursor. A prk_test_ key sees the sandbox wallet.',
      tags: ['Wallet'],
      auth: 'apiKey',
      scope: 'wallet:read',
      query: z.strictObject(pageQueryShape),
      responses: {
        200: {
          description: 'The wallet',
          schema: z.object({
            data: openApiComponent(
              z.object({
                balanceCents: z.number().int(),
                currency: z.literal('EUR'),
                entries: listEnvelopeSchema(openApiComponent(ledgerEntrySchema, 'LedgerEntry')),
              }),
              'Wallet',
            ),
          }),
          example: { data: EXAMPLE_WALLET },
        },
      },
      handle: async ({ auth, query }) => ({
        status: 200,
        body: { data: await deps.wallet.statement(auth.resellerId, auth.mode, query) },
      }),
    }),
  ];
}
