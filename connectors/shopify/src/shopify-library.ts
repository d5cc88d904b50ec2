import { AsyncLocalStorage } from 'node:async_hooks';
import type { ConnectorContext } from '@print-api/connector-kit';
import { ConnectorError, fetchOver } from '@print-api/connector-kit';
import { LogSeverity, shopifyApi, type Shopify } from '@shopify/shopify-api';
import {
  canonicalizeHeaders,
  setAbstractConvertHeadersFunc,
  setAbstractConvertIncomingResponseFunc,
  setAbstractConvertRequestFunc,
  setAbstractConvertResponseFunc,
  setAbstractFetchFunc,
  setAbstractRuntimeString,
  type NormalizedRequest,
  type NormalizedResponse,
} from '@shopify/shopify-api/runtime';
import { API_VERSION, SCOPES, type AppSettings } from './config.ts';

/**
 * `@shopify/shopify-api` talks to its host through process-wide adapter functions (fetch,
 * request/response conversion). Ours keep every call on core's HttpClient: the connector
 * context of the current call travels in an AsyncLocalStorage, so the library's token
 * exchange and refresh go through `ctx.http` (outbound guard, timeouts, logging, test
 * interception) exactly like our own GraphQL calls. Requests and responses are plain objects:
 * the library reads the query, cookies and headers we hand it and returns Location /
 * Set-Cookie to us.
 */
const current = new AsyncLocalStorage<ConnectorContext>();

/** The request we hand the library: it only reads these fields. */
export interface LibraryRequest {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
}

setAbstractFetchFunc(async (input, init) => {
  const ctx = current.getStore();
  if (!ctx) throw new Error('@shopify/shopify-api made a request outside a connector call');
  // The library calls out only to exchange and refresh tokens.
  return fetchOver(ctx.http, { operation: 'oauthToken' })(input, init);
});
setAbstractConvertRequestFunc(async ({ rawRequest }) => {
  const req = rawRequest as LibraryRequest;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = v;
  return { method: req.method, url: req.url, headers: canonicalizeHeaders(headers) } satisfies NormalizedRequest;
});
setAbstractConvertIncomingResponseFunc(async () => ({ statusCode: 200, statusText: 'OK', headers: {} }));
setAbstractConvertResponseFunc(async (response: NormalizedResponse) => response);
setAbstractConvertHeadersFunc(async (headers) => headers);
setAbstractRuntimeString(() => `Node ${process.version} (print-api)`);

/** Runs `work` with `ctx` as the connector context the library's requests and logs use. */
export function withContext<T>(ctx: ConnectorContext, work: () => Promise<T>): Promise<T> {
  return current.run(ctx, work);
}

const instances = new Map<string, Shopify>();

/** The app's settings from core; a connector call without them cannot verify or install anything. */
export function appSettings(ctx: Pick<ConnectorContext, 'appSettings'>): AppSettings {
  const { apiKey, secret } = ctx.appSettings;
  if (!apiKey || !secret) throw new ConnectorError('auth', 'The Shopify app is not configured: set SHOPIFY_API_KEY and SHOPIFY_API_SECRET.');
  return { apiKey, secret };
}

/**
 * The library configured for one app secret (our public app's, or a merchant's custom app's
 * for its webhooks) and our public URL (the OAuth redirect's host). Instances are cached:
 * the configuration is immutable.
 */
export function shopifyLibrary(opts: { apiKey: string; secret: string; publicUrl: string }): Shopify {
  const key = JSON.stringify([opts.apiKey, opts.secret, opts.publicUrl]);
  let shopify = instances.get(key);
  if (!shopify) {
    const url = new URL(opts.publicUrl);
    shopify = shopifyApi({
      apiKey: opts.apiKey,
      apiSecretKey: opts.secret,
      apiVersion: API_VERSION as Shopify['config']['apiVersion'],
      scopes: [...SCOPES],
      hostName: url.host,
      hostScheme: url.protocol === 'http:' ? 'http' : 'https',
      isEmbeddedApp: false,
      logger: {
        level: LogSeverity.Warning,
        log: async (severity, message) => {
          const logger = current.getStore()?.logger;
          if (severity === LogSeverity.Error) logger?.error(`@shopify/shopify-api: ${message}`);
          else logger?.warn(`@shopify/shopify-api: ${message}`);
        },
      },
    });
    instances.set(key, shopify);
  }
  return shopify;
}
