import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { signRs256Jwt } from '@print-api/connector-kit';
import {
  answerWith,
  eventually,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeReply,
  type FakeStore,
} from '@print-api/connector-kit/testing';
import appInstanceFixture from './fixtures/app-instance.json' with { type: 'json' };
import productsV1 from './fixtures/products-v1.json' with { type: 'json' };
import productsV3 from './fixtures/products-v3.json' with { type: 'json' };
import { catalogueRoute, type CatalogueSite, type CatalogVersion, type WixProductV1 } from './fake-wix-catalogue.ts';
import type { WixProductV3 } from './fake-wix-catalogue-v3.ts';
import {
  ordersRoute,
  type OrderSite,
  type WixFulfillment,
  type WixOrderJson,
  wixError,
  ORDER_WEBHOOKS,
} from './fake-wix-orders.ts';
import { wixStore } from './fake-wix-store.ts';
import {
  ACTION_BODIES,
  ORDER,
  ORDER_EVENT_TYPES,
  PRODUCT_ANSWERS,
  QUERY_VARIANTS_ANSWER,
  REQUESTS,
  requiredViolations,
  routeViolation,
  shapeViolations,
  SITE_PROPERTIES_ANSWER,
} from './wix-contract.ts';

export const APP = { appId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', appSecret: 'b7e1c9a2-5d3f-4e8a-9b6c-1f2e3d4c5b6a' };
export const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';

/**
 * What the official SDK packages' contract refused since the last `takeContractViolations`, in every fake site (each
 * test checks it is nothing).
 */
const violations: string[] = [];
export function takeContractViolations(): string[] {
  return violations.splice(0);
}

/** A call the fake saw: which API, with which token, when. */
export interface SeenCall {
  operation: string;
  path: string;
  body: unknown;
  at: number;
}

/** One Wix site with our app installed: its orders, fulfillments, catalogue and the calls it saw. */
export class FakeWixSite implements CatalogueSite, OrderSite {
  readonly instanceId = randomUUID();
  readonly name: string;
  installed = false;
  catalogVersion: CatalogVersion;
  /** The site's payment currency: its products are priced in it. */
  currency = 'USD';
  /** The country of the site's business address (Site Properties); null when the site has none. */
  country: string | null = 'US';
  /** The Catalog V1 products (the fixture's, then what the connector creates). */
  readonly products: WixProductV1[] = structuredClone(productsV1.products) as WixProductV1[];
  /** The Catalog V3 products, as Get Product answers them (the fixture's, then what the connector creates). */
  readonly productsV3: WixProductV3[] = structuredClone(productsV3.products) as WixProductV3[];
  readonly orders = new Map<string, WixOrderJson>();
  readonly fulfillments = new Map<string, WixFulfillment[]>();
  readonly calls: SeenCall[] = [];
  readonly faults: Array<{ operation: string; reply: FakeReply }> = [];

  constructor(name: string, catalogVersion: CatalogVersion) {
    this.name = name;
    this.catalogVersion = catalogVersion;
  }

  seen(operation: string): SeenCall[] {
    return this.calls.filter((c) => c.operation === operation);
  }

  /** The next call of `operation` is answered with `reply` instead. */
  faultNext(operation: string, reply: FakeReply): void {
    this.faults.push({ operation, reply });
  }
}

/**
 * Wix for our tests: one real local HTTPS server standing for `www.wixapis.com` (and the
 * installer at `www.wix.com`): the installer (`/installer/install?appId&postInstallationUrl`,
 * which installs the app on the site being connected and redirects with `appId`, `tenantId`,
 * `instanceId` added), the client-credentials token endpoint (checks app id, secret and that
 * the app is installed on the instance), and the site APIs our connector calls, each checking
 * `Authorization: <token>` exactly (a `Bearer` prefix, an unknown or expired token: 401):
 * `GET /apps/v1/instance`, `POST /ecom/v1/orders/search` (filter on `updatedDate`, cursor
 * pages), `GET /ecom/v1/orders/{id}`, fulfillments (list, create with Wix's checks), catalogue
 * version and products (V1, V3). Webhooks are delivered as Wix does: an RS256 JWT body signed
 * with the app's key, three levels of JSON strings inside.
 */
export class FakeWix implements FakePlatform {
  readonly app = APP;
  readonly platform = 'WIX';
  readonly expiringTokens = true;
  readonly holdsProducts = true;
  readonly shipsTo = {
    name: 'Ada Lovelace',
    email: 'ada.lovelace@example.com',
    phone: '+31 20 555 0100',
    address1: 'Keizersgracht 12',
    address2: '3e verdieping',
    postalCode: '1015 CS',
    city: 'Amsterdam',
    country: 'NL',
  };
  readonly sites = new Map<string, FakeWixSite>();
  readonly keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  readonly tokenRequests: Array<Record<string, unknown>> = [];
  /** The site the merchant picks in the installer next. */
  installing: FakeWixSite | null = null;
  /** The catalogue new sites run: V1 unless told (every new Wix site since 2025 runs V3). */
  readonly catalogVersion: CatalogVersion;
  tokenLifetimeSeconds = 4 * 3600;
  readonly #tokens = new Map<string, { instanceId: string; expiresAt: number }>();
  #url = '';

  constructor(opts: { catalogVersion?: CatalogVersion } = {}) {
    this.catalogVersion = opts.catalogVersion ?? 'V1_CATALOG';
  }

  get url(): string {
    return this.#url;
  }

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.#url = server.url;
    server.fallback(answerWith((req) => this.answer(req)));
    return this.settings();
  }

  settings(): Record<string, string> {
    return {
      CONNECTOR_WIX_APP_ID: APP.appId,
      CONNECTOR_WIX_APP_SECRET: APP.appSecret,
      CONNECTOR_WIX_PUBLIC_KEY: this.keys.publicKey,
      CONNECTOR_WIX_API_URL: this.#url,
      CONNECTOR_WIX_INSTALLER_URL: `${this.#url}/installer/install`,
    };
  }

  newSite(): FakeWixSite {
    const site = new FakeWixSite(`Tulip Prints ${this.sites.size + 1}`, this.catalogVersion);
    this.sites.set(site.instanceId, site);
    return site;
  }

  /** Revokes every token issued so far (they answer 401 from now on). */
  expireTokens(): void {
    for (const t of this.#tokens.values()) t.expiresAt = 0;
  }

  tokenGrants(instanceId?: string): number {
    return this.tokenRequests.filter(
      (r) => r.grant_type === 'client_credentials' && (!instanceId || r.instance_id === instanceId),
    ).length;
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    const site = this.newSite();
    const storeId = await this.install(service, key, site);
    await eventually(async () => site.seen('searchOrders').length > 0, 'the first poll');
    return wixStore(this, service, site, storeId);
  }

  /**
   * The install as a merchant's browser goes through it: install link, Wix's installer, our callback. Answers the store
   * id.
   */
  async install(service: ConformanceService, key: string, site: FakeWixSite): Promise<string> {
    const done = await this.installResponse(service, key, site);
    if (done.status !== 303) throw new Error(`install callback answered ${done.status}: ${await done.text()}`);
    return new URL(done.headers.get('location')!).searchParams.get('store')!;
  }

  /** The install, answering our callback's response; `tamper` changes the redirect Wix sends the browser to. */
  async installResponse(
    service: ConformanceService,
    key: string,
    site: FakeWixSite,
    opts: { tamper?: (callback: URL) => void; cookies?: (own: string[]) => string[] } = {},
  ): Promise<Response> {
    const link = await service.api(key, 'POST', '/stores/install-links', {
      platform: 'WIX',
      returnUrl: 'https://app.reseller.example/stores',
    });
    if (link.status !== 201) throw new Error(`install link: ${link.status} ${JSON.stringify(link.body)}`);
    const begin = await fetch(service.toService(link.body.data.installUrl), {
      redirect: 'manual',
      headers: { 'user-agent': BROWSER },
    });
    await begin.arrayBuffer();
    if (begin.status !== 302) throw new Error(`install begin answered ${begin.status}`);
    const cookies = begin.headers.getSetCookie().map((c) => c.split(';')[0]!);
    this.installing = site;
    // The browser at Wix's installer (answered in process: the test's own fetch does not trust the fake's certificate).
    const [status, text, headers] = this.installer(new URL(begin.headers.get('location')!));
    if (status !== 302) throw new Error(`installer answered ${status}: ${String(text)}`);
    const callback = new URL(headers!.location!);
    opts.tamper?.(callback);
    const done = await fetch(service.toService(callback.toString()), {
      redirect: 'manual',
      headers: { cookie: (opts.cookies ?? ((c) => c))(cookies).join('; '), 'user-agent': BROWSER },
    });
    return done;
  }

  /** A signed delivery of `eventType` for the site, as Wix POSTs it to our app's webhook URL. */
  webhookBody(
    site: FakeWixSite,
    eventType: string,
    event: unknown,
    opts: { privateKey?: string; issuedAt?: number; claims?: Record<string, unknown> } = {},
  ): string {
    const iat = opts.issuedAt ?? Math.floor(Date.now() / 1000);
    const envelope = {
      data: JSON.stringify(event),
      instanceId: site.instanceId,
      eventType,
      identity: JSON.stringify({ identityType: 'APP' }),
    };
    return signRs256Jwt(
      { data: JSON.stringify(envelope), iat, exp: iat + 3600, iss: 'wix.com', aud: APP.appId, ...opts.claims },
      opts.privateKey ?? this.keys.privateKey,
      { kid: 'fake-wix' },
    );
  }

  async post(service: ConformanceService, body: string): Promise<number> {
    const res = await fetch(service.toService(`${service.publicUrl}/connectors/wix/webhooks`), {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'user-agent': 'Wix-Webhooks' },
      body,
    });
    await res.arrayBuffer();
    return res.status;
  }

  /** An order event (`actionEvent` for approved/payment/canceled, `updatedEvent` for updated). */
  orderEvent(
    order: WixOrderJson,
    eventType: string,
    opts: { eventId?: string; eventTime?: string } = {},
  ): Record<string, unknown> {
    const base = {
      id: opts.eventId ?? randomUUID(),
      entityFqdn: 'wix.ecom.v1.order',
      entityId: order.id,
      eventTime: opts.eventTime ?? new Date().toISOString(),
      triggeredByAnonymizeRequest: false,
    };
    if (!ORDER_EVENT_TYPES.has(eventType))
      violations.push(`${eventType}: not an order event type of @wix/auto_sdk_ecom_orders`);
    const event = this.#orderEvent(order, eventType, base);
    const slug = String(event.slug);
    const checked = event.actionEvent
      ? shapeViolations((event.actionEvent as { body: unknown }).body, ACTION_BODIES[slug] ?? {})
      : shapeViolations((event.updatedEvent as { currentEntity: unknown }).currentEntity, ORDER);
    violations.push(...checked.map((c) => `${eventType} event: ${c}`));
    return event;
  }

  #orderEvent(order: WixOrderJson, eventType: string, base: Record<string, unknown>): Record<string, unknown> {
    switch (eventType) {
      case ORDER_WEBHOOKS.updated:
        return { ...base, slug: 'updated', updatedEvent: { currentEntity: order, modifiedFields: {} } };
      case ORDER_WEBHOOKS.paid:
        return {
          ...base,
          slug: 'payment_status_updated',
          actionEvent: { body: { order, previousPaymentStatus: 'NOT_PAID' } },
        };
      case ORDER_WEBHOOKS.cancelled:
        return {
          ...base,
          slug: 'canceled',
          actionEvent: { body: { order, restockAllItems: false, sendOrderCanceledEmail: false } },
        };
      default:
        return { ...base, slug: 'approved', actionEvent: { body: { order } } };
    }
  }

  async answer(req: Request): Promise<FakeReply> {
    const url = new URL(req.url);
    const path = url.pathname;
    if (req.method === 'GET' && path === '/installer/install') return this.installer(url);
    if (req.method === 'POST' && path === '/oauth2/token') return this.#token(req);

    // Every site API: `Authorization: <token>`, exactly (no Bearer).
    const auth = req.headers.get('authorization') ?? '';
    const token = this.#tokens.get(auth);
    if (!token)
      return wixError(
        401,
        auth.startsWith('Bearer ') ? 'Invalid token format: send the token without Bearer' : 'Unauthorized',
        'UNAUTHORIZED',
      );
    if (token.expiresAt <= Date.now()) return wixError(401, 'Token expired', 'TOKEN_EXPIRED');
    const site = this.sites.get(token.instanceId);
    if (!site?.installed) return wixError(403, 'App is not installed on this site', 'APP_NOT_INSTALLED');

    const body: unknown = req.method === 'GET' ? undefined : await req.json().catch(() => undefined);
    const route = this.#route(req.method, path);
    if (!route) return wixError(404, `No route ${req.method} ${path}`, 'NOT_FOUND');
    site.calls.push({ operation: route.operation, path, body, at: Date.now() });
    // Held to the official SDK packages: the method and path the SDK calls, the request's fields and enum values.
    const refused = [
      routeViolation(route.operation, req.method, path),
      ...(REQUESTS[route.operation] ? shapeViolations(body, REQUESTS[route.operation]!) : []),
      ...requiredViolations(route.operation, body),
    ].filter((v): v is string => v !== null);
    if (refused.length) {
      violations.push(...refused.map((r) => `${route.operation}: ${r}`));
      return [
        400,
        {
          message: refused.join('; '),
          details: { validationError: { fieldViolations: refused.map((description) => ({ field: '', description })) } },
        },
      ];
    }
    const fault = site.faults.findIndex((f) => f.operation === route.operation);
    if (fault >= 0) return site.faults.splice(fault, 1)[0]!.reply;
    const reply = route.handle(site, body, route.id);
    // The fake's own orders must be Orders as the SDK types them (a misread field or enum would pass unseen otherwise).
    const answered =
      reply[0] === 200
        ? (reply[1] as { orders?: unknown[]; order?: unknown; products?: unknown[]; product?: unknown })
        : {};
    const wrong = [...(answered.orders ?? []), ...(answered.order ? [answered.order] : [])].flatMap((o) =>
      shapeViolations(o, ORDER),
    );
    const productShape = PRODUCT_ANSWERS[route.operation];
    if (productShape)
      wrong.push(
        ...[...(answered.products ?? []), ...(answered.product ? [answered.product] : [])].flatMap((p) =>
          shapeViolations(p, productShape),
        ),
      );
    if (route.operation === 'queryVariants' && reply[0] === 200)
      wrong.push(...shapeViolations(reply[1], QUERY_VARIANTS_ANSWER));
    if (route.operation === 'getSiteProperties') wrong.push(...shapeViolations(reply[1], SITE_PROPERTIES_ANSWER));
    if (wrong.length) violations.push(...wrong.map((w) => `answer to ${route.operation}: ${w}`));
    return reply;
  }

  #route(
    method: string,
    path: string,
  ): { operation: string; id: string; handle: (site: FakeWixSite, body: any, id: string) => FakeReply } | null {
    if (method === 'GET' && path === '/site-properties/v4/properties')
      return {
        operation: 'getSiteProperties',
        id: '',
        handle: (s) => [
          200,
          {
            properties: {
              businessName: s.name,
              ...(s.country ? { address: { country: s.country, city: 'Amsterdam' } } : {}),
            },
          },
        ],
      };
    if (method === 'GET' && path === '/apps/v1/instance')
      return {
        operation: 'getAppInstance',
        id: '',
        handle: (s) => [
          200,
          {
            ...appInstanceFixture,
            instance: { ...appInstanceFixture.instance, instanceId: s.instanceId },
            site: { ...appInstanceFixture.site, siteDisplayName: s.name, paymentCurrency: s.currency },
          },
        ],
      };
    return ordersRoute(method, path) ?? catalogueRoute(method, path);
  }

  /**
   * Wix's installer: the merchant installs the app on the site being connected; redirected to `postInstallationUrl`
   * with `appId`, `tenantId`, `instanceId`.
   */
  installer(url: URL): FakeReply {
    if (url.searchParams.get('appId') !== APP.appId) return [404, 'No such app'];
    const back = url.searchParams.get('postInstallationUrl');
    const site = this.installing;
    if (!back || !site) return [400, 'Nothing to install'];
    site.installed = true;
    this.installing = null;
    const target = new URL(back);
    target.searchParams.set('appId', APP.appId);
    target.searchParams.set('tenantId', randomUUID());
    target.searchParams.set('instanceId', site.instanceId);
    return [302, '', { location: target.toString() }];
  }

  async #token(req: Request): Promise<FakeReply> {
    if (!(req.headers.get('content-type') ?? '').startsWith('application/json'))
      return wixError(415, 'Content-Type must be application/json', 'UNSUPPORTED_MEDIA_TYPE');
    const body = (await req.json().catch(() => ({}))) as Record<string, unknown>;
    this.tokenRequests.push(body);
    if (body.grant_type !== 'client_credentials') return wixError(400, 'Unsupported grant_type', 'INVALID_GRANT');
    if (body.client_id !== APP.appId || body.client_secret !== APP.appSecret)
      return wixError(401, 'Invalid client credentials', 'INVALID_CLIENT');
    const site = this.sites.get(String(body.instance_id));
    if (!site?.installed) return wixError(400, 'App is not installed on this instance', 'APP_NOT_INSTALLED');
    const token = `OauthNG.JWS.${randomBytes(24).toString('base64url')}`;
    this.#tokens.set(token, { instanceId: site.instanceId, expiresAt: Date.now() + this.tokenLifetimeSeconds * 1000 });
    return [200, { access_token: token, token_type: 'Bearer', expires_in: this.tokenLifetimeSeconds }];
  }
}
