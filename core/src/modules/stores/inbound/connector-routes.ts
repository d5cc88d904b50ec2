import type { Request } from 'express';
import { z } from 'zod';
import { defineRoute, type AnyRoute, type RouteContext } from '../../../web/route.ts';
import type { CredentialRequests } from '../connect/credential-requests.ts';
import type { OAuthInstalls } from '../connect/oauth-installs.ts';
import { installLinkSchema } from '../stores-schemas.ts';
import type { ConnectorEndpoints } from './connector-endpoints.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

const tags = ['Connectors'];
const platformParam = z.string().min(1).max(40);
const bytes = z.instanceof(Buffer);
const receiptSchema = z.object({
  received: z.literal(true),
  duplicate: z.boolean().optional(),
  ignored: z.string().optional(),
});
const redirect = (location: string, status: 302 | 303, headers: Record<string, string | string[]> = {}) => ({
  status,
  body: undefined,
  headers: { ...headers, Location: location },
});

/**
 * What platforms and merchants' browsers call, at `/connectors/<platform>/…` (outside the API
 * base: platforms are given these URLs): inbound webhooks, the OAuth install redirect and
 * callback, the key-issuing flow's callback and return, and the old path of install links.
 * Declared like the API's routes (validation, one error shape, response checks in tests,
 * metrics by declared path); `platform` is the connector's slug (`tiktok-shop`).
 */
export function connectorRoutes(deps: {
  receiver: WebhookReceiver;
  installs: OAuthInstalls;
  credentialRequests: CredentialRequests;
  endpoints: ConnectorEndpoints;
}): AnyRoute[] {
  const { receiver, installs, credentialRequests, endpoints } = deps;
  const receive = async ({
    params,
    body,
    req,
  }: RouteContext<{ platform: string; target?: string }, unknown, Buffer>) => ({
    status: 200,
    body: await receiver.receive(params.platform, {
      headers: flatHeaders(req),
      rawBody: body,
      path: params.target ?? '',
      query: stringQuery(req),
    }),
  });
  const webhook = {
    tags,
    auth: 'public' as const,
    rawBody: { limit: '5mb' },
    body: bytes,
    responses: {
      200: {
        description: 'Stored (or a duplicate, or for no store we know): the platform need not send it again',
        schema: receiptSchema,
      },
    },
    errors: [
      { status: 401, code: 'invalid_signature', description: 'Forged, unsigned or stale: nothing stored.' },
      { status: 404, code: 'not_found', description: 'No connector of that name is enabled.' },
    ],
  };
  const endpoint = {
    tags,
    auth: 'public' as const,
    params: z.object({
      platform: platformParam,
      endpoint: z
        .string()
        .regex(/^[a-z][a-z0-9-]*$/)
        .max(60),
    }),
    query: z.looseObject({}),
    responses: {
      200: { description: "The connector's answer (eBay's `{challengeResponse}`)", schema: z.looseObject({}) },
      204: { description: 'Received' },
    },
    errors: [
      { status: 400, code: 'invalid_request', description: 'What the connector needs is missing.' },
      { status: 404, code: 'not_found', description: 'No such endpoint of an enabled connector.' },
      {
        status: 412,
        code: 'notification_not_verified',
        description: "The notification's signature does not verify: nothing done.",
      },
      { status: 502, code: 'store_unreachable', description: 'The platform could not be reached (its signing key).' },
    ],
  };
  const answerEndpoint = async ({
    params,
    req,
    body,
  }: RouteContext<{ platform: string; endpoint: string }, unknown, Buffer | undefined>) =>
    endpoints.call(params.platform, params.endpoint, {
      method: req.method === 'POST' ? 'POST' : 'GET',
      headers: flatHeaders(req),
      query: stringQuery(req),
      rawBody: body ?? Buffer.alloc(0),
    });
  return [
    defineRoute({
      ...webhook,
      method: 'post',
      path: '/connectors/{platform}/webhooks',
      operationId: 'receiveAppWebhook',
      summary:
        'A webhook signed with the app-level secret; the connector names the store from the delivery (identifyStore)',
      params: z.object({ platform: platformParam }),
      handle: receive,
    }),
    defineRoute({
      ...webhook,
      method: 'post',
      path: '/connectors/{platform}/webhooks/{target}',
      operationId: 'receiveWebhook',
      summary:
        "A store's webhook (`target` is the store id) or one at a path of the connector's own (Shopify's `compliance`)",
      params: z.object({ platform: platformParam, target: z.string().min(1).max(200) }),
      handle: receive,
    }),
    defineRoute({
      method: 'get',
      path: '/connectors/{platform}/install',
      operationId: 'beginInstall',
      summary: "The merchant's browser opens an install link: sent on to the platform's consent screen",
      tags,
      auth: 'public',
      params: z.object({ platform: platformParam }),
      query: z.looseObject({ state: z.string().max(4096).optional() }),
      responses: { 302: { description: "To the platform's consent screen, with the install cookie" } },
      errors: [{ status: 404, code: 'unknown_install_link', description: 'Unknown or expired install link.' }],
      handle: async ({ params, query, req }) => {
        const begun = await installs.begin(params.platform, query.state, stringQuery(req));
        return redirect(begun.redirectUrl, 302, { 'Set-Cookie': begun.cookies });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/connectors/{platform}/callback',
      operationId: 'completeInstall',
      summary: 'The platform sends the merchant back: the store is connected',
      tags,
      auth: 'public',
      params: z.object({ platform: platformParam }),
      query: z.looseObject({}),
      responses: {
        200: {
          description: 'Connected (no returnUrl)',
          schema: z.object({
            connected: z.literal(true),
            storeId: z.string(),
            platform: z.string(),
            externalId: z.string(),
          }),
        },
        303: { description: 'Connected: on to the returnUrl, with ?store=&platform=' },
      },
      errors: [
        { status: 400, code: 'install_not_started', description: 'No install in progress in this browser.' },
        {
          status: 422,
          code: 'store_install_rejected',
          description: 'The platform or connector refused what came back (also store_not_connectable).',
        },
        { status: 502, code: 'store_unreachable', description: 'The platform could not be reached.' },
      ],
      handle: async ({ params, req }) => {
        const done = await installs.complete(params.platform, {
          query: stringQuery(req),
          rawQuery: rawQuery(req),
          headers: flatHeaders(req),
        });
        if (done.returnUrl) return redirect(done.returnUrl, 303, { 'Set-Cookie': done.cookies });
        return {
          status: 200,
          body: {
            connected: true,
            storeId: done.store.id,
            platform: done.store.platform,
            externalId: done.store.external_id,
          },
          headers: { 'Set-Cookie': done.cookies },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/connectors/{platform}/credentials/{state}',
      operationId: 'receiveStoreCredentials',
      summary:
        'The platform hands over the credentials of a key-issuing flow (the sealed state in the path is the authority); 200 once the store is connected',
      tags,
      auth: 'public',
      params: z.object({ platform: platformParam, state: z.string().min(1).max(4096) }),
      rawBody: { limit: '64kb' },
      body: bytes,
      responses: {
        200: { description: 'Connected', schema: z.object({ connected: z.literal(true), storeId: z.string() }) },
      },
      errors: [{ status: 404, code: 'unknown_credential_request', description: 'Unknown or expired request.' }],
      handle: async ({ params, body, req }) => {
        const { storeId } = await credentialRequests.receive(params.platform, params.state, {
          headers: flatHeaders(req),
          rawBody: body,
        });
        return { status: 200, body: { connected: true, storeId } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/connectors/{platform}/credentials/{state}/return',
      operationId: 'returnFromStoreCredentials',
      summary: "The merchant comes back from the platform: on to the reseller's returnUrl",
      tags,
      auth: 'public',
      params: z.object({ platform: platformParam, state: z.string().min(1).max(4096) }),
      query: z.looseObject({}),
      responses: {
        200: {
          description:
            'A page saying the window can be closed (no returnUrl, a flow that connected nothing, or a return already made)',
        },
        303: {
          description:
            "On to the reseller's returnUrl, with the platform's query: once, at the end of the request's completed flow",
        },
      },
      handle: async ({ params, req }) => {
        const target = await credentialRequests.returnTarget(params.platform, params.state, rawQuery(req));
        if (target) return redirect(target, 303);
        return {
          status: 200,
          body: undefined,
          text: 'You can close this window: the store shows in your Print API account (GET /stores) once it is connected.\n',
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/connectors/{platform}/install-links',
      operationId: 'createInstallLinkAtOldPath',
      summary:
        'Deprecated: the old path of POST /api/reseller/v1/stores/install-links (platform in the path), kept for the clients that use it',
      tags,
      auth: 'apiKey',
      scope: 'stores:write',
      params: z.object({ platform: platformParam }),
      body: z.looseObject({}).optional(),
      responses: { 201: { description: 'Where to send the merchant', schema: installLinkSchema } },
      handle: async ({ auth, params, body }) => ({
        status: 201,
        body: { data: await installs.createLink(auth, params.platform, body ?? {}) },
      }),
    }),
    // Last: the paths above are core's own (Connector.endpoints may not take their names).
    defineRoute({
      ...endpoint,
      method: 'get',
      path: '/connectors/{platform}/{endpoint}',
      operationId: 'callConnectorEndpoint',
      summary: "A platform calls one of the connector's own endpoints (eBay's account deletion challenge)",
      handle: answerEndpoint,
    }),
    defineRoute({
      ...endpoint,
      method: 'post',
      path: '/connectors/{platform}/{endpoint}',
      operationId: 'postToConnectorEndpoint',
      summary:
        "A platform posts to one of the connector's own endpoints (eBay's signed account deletion notifications)",
      rawBody: { limit: '1mb' },
      body: bytes,
      handle: answerEndpoint,
    }),
  ];
}

function flatHeaders(req: Request): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
}

function stringQuery(req: Request): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]));
}

function rawQuery(req: Request): string {
  return req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
}
