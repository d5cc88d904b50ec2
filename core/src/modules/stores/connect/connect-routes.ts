import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../../../web/route.ts';
import type { ConnectorRegistry } from '../connector-registry.ts';
import { returnUrlSchema, type CredentialRequests } from './credential-requests.ts';
import { platformBody } from './platform-bodies.ts';
import type { OAuthInstalls } from './oauth-installs.ts';
import { tags, installLinkSchema } from '../stores-schemas.ts';

/**
 * `POST /stores/install-links`: begins an OAuth install (its old path, `/connectors/<platform>/install-links`, stays as
 * an alias: connector-routes.ts).
 */
export function installLinkRoute(installs: OAuthInstalls): AnyRoute {
  return defineRoute({
    method: 'post',
    path: '/stores/install-links',
    operationId: 'createStoreInstallLink',
    summary: 'Make a link that installs our app on a store (OAuth platforms)',
    description:
      "`{platform, returnUrl?, ...fields}` (SHOPIFY: `shop`). Send the merchant to `installUrl` within 30 minutes: they approve on the platform's consent screen, the store is connected as with POST /stores, and they are sent to `returnUrl` with `?store=<id>&platform=<platform>` (or shown a JSON confirmation). No API key travels in the link.",
    tags,
    auth: 'apiKey',
    scope: 'stores:write',
    body: z.looseObject({
      platform: z.string().min(1).max(40).meta({ description: 'A platform with an OAuth install (SHOPIFY).' }),
      returnUrl: z
        .string()
        .optional()
        .meta({ description: 'http(s) URL the merchant is sent to once the store is connected.' }),
    }),
    bodyExample: {
      platform: 'SHOPIFY',
      shop: 'tulip-prints.myshopify.com',
      returnUrl: 'https://reseller.example.com/stores/connected',
    },
    responses: {
      201: {
        description: 'Where to send the merchant',
        schema: installLinkSchema,
        example: {
          data: {
            installUrl: 'https://print-api.example/connectors/shopify/install/v1.Q2hKc3dHb0.4kXz9T',
            expiresAt: '2026-11-25T10:50:41.730Z',
          },
        },
      },
    },
    errors: [
      {
        status: 422,
        code: 'unsupported_platform',
        description: 'No enabled connector installs through OAuth on this platform.',
      },
    ],
    handle: async ({ auth, body }) => {
      const { platform, ...fields } = body;
      return { status: 201, body: { data: await installs.createLink(auth, platform, fields) } };
    },
  });
}

/** `POST /stores/credential-requests`: begins a key-issuing connect flow (WooCommerce's /wc-auth/v1/authorize). */
export function credentialRequestRoute(
  credentialRequests: CredentialRequests,
  connectors: ConnectorRegistry,
): AnyRoute {
  const request = platformBody(
    connectors.all().flatMap((c) =>
      c.credentialRequest
        ? [
            {
              platform: c.manifest.platform,
              displayName: c.manifest.displayName,
              fields: c.credentialRequest.inputSchema,
              example: c.manifest.examples.credentialRequest ?? {},
            },
          ]
        : [],
    ),
    {
      returnUrl: returnUrlSchema.meta({
        description: 'Where the merchant goes once the platform is done (with its query).',
      }),
    },
    'StoreCredentialRequest',
  );
  return defineRoute({
    method: 'post',
    path: '/stores/credential-requests',
    operationId: 'requestStoreCredentials',
    summary: 'Ask a store to issue credentials to us',
    description:
      "`{platform, returnUrl?, ...fields}`: the platforms with a key-issuing flow, each with its fields. Send the merchant to `redirectUrl`: once they approve, the platform hands the credentials to us, the store is connected as with POST /stores, and the merchant is sent to `returnUrl` (with the platform's query).",
    tags,
    auth: 'apiKey',
    scope: 'stores:write',
    body: request.body,
    bodyExamples: request.examples,
    responses: {
      201: {
        description: 'Where to send the merchant',
        schema: z.object({ data: z.object({ redirectUrl: z.string(), expiresAt: z.string() }) }),
        example: {
          data: {
            redirectUrl:
              'https://tulip-prints.example.com/wc-auth/v1/authorize?app_name=Print+API&scope=read_write&user_id=v1.Q2hKc3dHb0&return_url=https%3A%2F%2Fprint-api.example%2Fconnectors%2Fwoocommerce%2Fcredentials%2Fv1.Q2hKc3dHb0%2Freturn&callback_url=https%3A%2F%2Fprint-api.example%2Fconnectors%2Fwoocommerce%2Fcredentials%2Fv1.Q2hKc3dHb0',
            expiresAt: '2026-11-25T11:20:41.730Z',
          },
        },
      },
    },
    handle: async ({ auth, body }) => {
      const { platform, ...fields } = body;
      return { status: 201, body: { data: await credentialRequests.begin(auth, String(platform), fields) } };
    },
  });
}
