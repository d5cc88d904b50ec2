import { AsyncLocalStorage } from 'node:async_hooks';
import type { ConnectorContext } from '@print-api/connector-kit';
import { ConnectorError, fetchOver, settingVariable } from '@print-api/connector-kit';
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
import { API_VERSION, DEFAULT_API_URL, PUBLISHING_SCOPES, SCOPES, shopOrigin, type ShopifySettings } from './config.ts';

/**
 * `@shopify/shopify-api` talks to its host through process-wide adapter functions (fetch,
 * request/response conversion). Ours keep every call on core's HttpClient: the connector
 * context of the current call travels in an AsyncLocalStorage, so the library's token
 * exchange and refresh go through `ctx.http` (outbound guard, timeouts, logging, test
 * interception) exactly like our own GraphQL calls. Requests and responses are plain objects:
 * the library reads the query, cookies and headers we hand it and returns Location /
 * Set-Cookie to us.
 */
const current = new AsyncLocalStorage<ConnectorContext<ShopifySettings>>();

/** The request we hand the library: it only reads these fields. */
export interface LibraryRequest {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
}

setAbstractFetchFunc(async (input, init) => {
  const ctx = current.getStore();
  if (!ctx) throw new Error('@shopify/shopify-api made a request outside a connector call');
  // The library calls out only to exchange and refresh tokens, at the shop's origin (or the sandbox's:
  // CONNECTOR_SHOPIFY_API_URL).
  const url = atShopOrigin(
    ctx.settings,
    typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url,
  );
  return fetchOver(ctx.http, { operation: 'oauthToken' })(url, init);
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
export function withContext<T>(ctx: ConnectorContext<ShopifySettings>, work: () => Promise<T>): Promise<T> {
  return current.run(ctx, work);
}

const instances = new Map<string, Shopify>();

/**
 * A URL the library made for a shop (`https://<shop>/admin/oauth/…`), on the configured origin
 * instead (`CONNECTOR_SHOPIFY_API_URL`: a sandbox or a local fake); unchanged by default.
 */
export function atShopOrigin(settings: Pick<ShopifySettings, 'apiUrl'>, url: string): string {
  if (settings.apiUrl === DEFAULT_API_URL) return url;
  const u = new URL(url);
  return `${shopOrigin(settings, u.host)}${u.pathname}${u.search}`;
}

/** Our public app's key and secret; a flow that needs them fails, naming the variables, when they are not set. */
export function appCredentials(settings: ShopifySettings): { apiKey: string; secret: string } {
  const { apiKey, apiSecret } = settings;
  if (!apiKey || !apiSecret) {
    throw new ConnectorError(
      'auth',
      `The Shopify app is not configured: set ${settingVariable('SHOPIFY', 'apiKey')} and ${settingVariable('SHOPIFY', 'apiSecret')}.`,
    );
  }
  return { apiKey, secret: apiSecret };
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
      scopes: [...SCOPES, ...PUBLISHING_SCOPES],
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
