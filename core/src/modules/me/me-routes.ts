import { z } from 'zod';
import { EXAMPLE_ME } from '../../web/api-examples.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import { scopeSchema } from '../../kernel/scopes.ts';

const meSchema = z.object({
  resellerId: z.string(),
  resellerName: z.string(),
  keyId: z.string(),
  mode: z
    .enum(['live', 'test'])
    .meta({ description: '`live` (prk_live_: real orders) or `test` (prk_test_: the sandbox).' }),
  scopes: z.array(scopeSchema).nullable().meta({
    description:
      'The scopes of the key (each operation names the one it needs in x-scope); null: every scope; []: none, only GET /me.',
  }),
});

/** Who am I: the cheapest authenticated call, for integration checks (extension of the spec). */
export function meRoutes(): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/me',
      operationId: 'getMe',
      summary: 'The reseller, mode and scopes of the calling API key',
      description: 'Extension: lets an integration check its key without side effects. No scope needed.',
      tags: ['Account'],
      auth: 'apiKey',
      responses: {
        200: { description: 'The key', schema: z.object({ data: meSchema }), example: { data: EXAMPLE_ME } },
      },
      handle: async ({ auth }) => ({
        status: 200,
        body: {
          data: {
            resellerId: auth.resellerId,
            resellerName: auth.resellerName,
            keyId: auth.keyId,
            mode: auth.mode,
            scopes: auth.scopes ? [...auth.scopes].sort() : null,
          },
        },
      }),
    }),
  ];
}
