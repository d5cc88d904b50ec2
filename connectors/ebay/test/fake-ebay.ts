import { generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import {
  answerWith,
  ContractLog,
  OpenApiContract,
  type FakeHttpsServer,
  type FakeReply,
} from '@print-api/connector-kit/testing';
import accountModel from './fixtures/contract/sell_account_v1_oas3.subset.json' with { type: 'json' };
import fulfillmentModel from './fixtures/contract/sell_fulfillment_v1_oas3.subset.json' with { type: 'json' };
import identityModel from './fixtures/contract/commerce_identity_v1_oas3.subset.json' with { type: 'json' };
import inventoryModel from './fixtures/contract/sell_inventory_v1_oas3.subset.json' with { type: 'json' };
import notificationModel from './fixtures/contract/commerce_notification_v1_oas3.subset.json' with { type: 'json' };
import { answerFor } from './fake-ebay-api.ts';

/** eBay's published contracts, by the base path of their servers: every call is checked against its own. */
export const CONTRACTS: ReadonlyArray<[basePath: string, contract: OpenApiContract]> = [
  ['/sell/fulfillment/v1', new OpenApiContract(fulfillmentModel, 'eBay Sell Fulfillment v1')],
  ['/sell/inventory/v1', new OpenApiContract(inventoryModel, 'eBay Sell Inventory v1')],
  ['/sell/account/v1', new OpenApiContract(accountModel, 'eBay Sell Account v1')],
  ['/commerce/notification/v1', new OpenApiContract(notificationModel, 'eBay Notification v1')],
  ['/commerce/identity/v1', new OpenApiContract(identityModel, 'eBay Identity v1')],
];

export const APP = {
  clientId: 'PrintApi-PrintApi-PRD-4f2e8a1c9-3b7d5e2a',
  clientSecret: 'PRD-f2e8a1c93b7d-5e2a-4c6b-9d0e-8f1a',
  ruName: 'Print_API-PrintApi-PrintA-abcdefgh',
  verificationToken: 'verification-token-of-print-api-0123456789abcdef',
};
const SCOPE = 'https://api.ebay.com/oauth/api_scope';
const USER_SCOPES = [
  `${SCOPE}/sell.fulfillment`,
  `${SCOPE}/sell.inventory`,
  `${SCOPE}/sell.account.readonly`,
  `${SCOPE}/commerce.identity.readonly`,
];
const CODE_LIFETIME_S = 299;
const ACCESS_LIFETIME_S = 7200;
const REFRESH_LIFETIME_S = 47_304_000;

/** eBay's error shape. */
export const ebayErrors = (errorId: number, message: string, category = 'REQUEST', domain = 'API_FULFILLMENT') => ({
  errors: [{ errorId, domain, category, message, longMessage: message }],
});
const invalidToken: FakeReply = [
  401,
  ebayErrors(
    1001,
    'Invalid access token. Check the value of the Authorization HTTP request header.',
    'REQUEST',
    'OAuth',
  ),
];

export interface SeenCall {
  operation: string;
  rawQuery: string;
  body?: unknown;
  at: number;
}

export type Json = Record<string, any>;

/** One seller on the fake: orders, inventory, offers, business policies, tokens and what it was asked. */
export class FakeSeller {
  readonly userId = randomBytes(6).toString('base64url');
  readonly username = `tulip_prints_${randomBytes(3).toString('hex')}`;
  readonly marketplaceId = 'EBAY_DE';
  readonly orders = new Map<string, Json>();
  readonly fulfillments = new Map<string, Json[]>();
  readonly items = new Map<string, Json>();
  readonly offers = new Map<string, Json>();
  readonly policies = {
    fulfillment: [{ fulfillmentPolicyId: '6196932000', name: 'Versand DHL Paket' }],
    payment: [{ paymentPolicyId: '6196939000', name: 'eBay Zahlungsabwicklung' }],
    return: [{ returnPolicyId: '6196944000', name: '30 Tage Rückgabe' }],
  };
  readonly locations = [
    { merchantLocationKey: 'druckerei-amsterdam', name: 'Druckerei', merchantLocationStatus: 'ENABLED' },
  ];
  readonly calls: SeenCall[] = [];
  readonly refreshTokens = new Set<string>();
  refreshes = 0;
  #faults: Array<{ operation: string; reply: FakeReply }> = [];
  #lastStamp = 0;

  stamp(at?: string): string {
    if (at) return at;
    const now = Math.max(Date.now(), this.#lastStamp + 1);
    this.#lastStamp = now;
    return new Date(now).toISOString();
  }

  faultNext(operation: string, reply: FakeReply): void {
    this.#faults.push({ operation, reply });
  }

  takeFault(operation: string): FakeReply | undefined {
    const i = this.#faults.findIndex((f) => f.operation === operation);
    return i < 0 ? undefined : this.#faults.splice(i, 1)[0]!.reply;
  }

  seen(operation: string): SeenCall[] {
    return this.calls.filter((c) => c.operation === operation);
  }
}

/**
 * eBay for our tests, on one local HTTPS server: the consent page (`approve`: the RuName's accepted URL with the code),
 * the OAuth token endpoint (HTTP Basic with the app's id and secret; an authorization code for the RuName it was issued
 * to, once, within 299 s; refresh tokens; client credentials), Bearer tokens with their scopes and expiry, every REST
 * call checked against the vendored OpenAPI documents (and the headers eBay requires), eBay's error shape, 429 with
 * Retry-After on demand; and the Notification API's public key for the ECDSA key it signs account deletion
 * notifications with.
 */
export class FakeEbay {
  readonly sellers = new Map<string, FakeSeller>();
  readonly codes = new Map<string, { sellerId: string; ruName: string; issuedAt: number; used: boolean }>();
  readonly tokens = new Map<string, { sellerId: string | null; scopes: string[]; until: number }>();
  readonly tokenRequests: Array<Record<string, string>> = [];
  readonly contractLog = new ContractLog();
  readonly kid = randomUUID();
  readonly #signing: { privateKey: KeyObject; publicKey: KeyObject } = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
  });
  /** More keys the Notification API serves, by kid (PEM on one line, as eBay answers them). */
  readonly extraKeys = new Map<string, string>();
  publicKeyCalls = 0;
  url = '';
  /** The RuName's accepted URL, as set in eBay's developer portal. */
  acceptUrl = '';

  settings(): Record<string, string> {
    return {
      CONNECTOR_EBAY_CLIENT_ID: APP.clientId,
      CONNECTOR_EBAY_CLIENT_SECRET: APP.clientSecret,
      CONNECTOR_EBAY_RU_NAME: APP.ruName,
      CONNECTOR_EBAY_VERIFICATION_TOKEN: APP.verificationToken,
      CONNECTOR_EBAY_API_URL: this.url,
      CONNECTOR_EBAY_AUTH_URL: this.url,
      CONNECTOR_EBAY_IDENTITY_URL: this.url,
    };
  }

  serve(server: Pick<FakeHttpsServer, 'url' | 'fallback'>, publicUrl: string): void {
    this.url = server.url;
    this.acceptUrl = `${publicUrl}/connectors/ebay/callback`;
    server.fallback(answerWith((req) => this.answer(req)));
  }

  seller(): FakeSeller {
    const seller = new FakeSeller();
    this.sellers.set(seller.userId, seller);
    return seller;
  }

  /** The seller agrees on eBay's consent page: where eBay sends the browser (the RuName's accepted URL). */
  approve(consentUrl: string, seller: FakeSeller, opts: { issuedAt?: number } = {}): string {
    const url = new URL(consentUrl);
    if (url.pathname !== '/oauth2/authorize') throw new Error(`not the consent page: ${url.pathname}`);
    const q = url.searchParams;
    if (q.get('client_id') !== APP.clientId) throw new Error(`consent for an unknown app ${q.get('client_id')}`);
    if (q.get('response_type') !== 'code') throw new Error('response_type must be code');
    if (q.get('redirect_uri') !== APP.ruName)
      throw new Error(`redirect_uri ${q.get('redirect_uri')} is not the RuName`);
    const scopes = (q.get('scope') ?? '').split(' ');
    for (const s of USER_SCOPES) if (!scopes.includes(s)) throw new Error(`the consent does not ask for ${s}`);
    const code = `v^1.1#i^1#r^1#f^0#p^3#I^3#t^${randomBytes(24).toString('base64url')}`;
    this.codes.set(code, {
      sellerId: seller.userId,
      ruName: APP.ruName,
      issuedAt: opts.issuedAt ?? Date.now(),
      used: false,
    });
    const back = new URL(this.acceptUrl);
    back.searchParams.set('state', q.get('state') ?? '');
    back.searchParams.set('code', code);
    back.searchParams.set('expires_in', String(CODE_LIFETIME_S));
    return back.toString();
  }

  expireTokens(seller: FakeSeller): void {
    for (const t of this.tokens.values()) if (t.sellerId === seller.userId) t.until = 0;
  }

  revoke(seller: FakeSeller): void {
    seller.refreshTokens.clear();
    for (const [token, t] of this.tokens) if (t.sellerId === seller.userId) this.tokens.delete(token);
  }

  /** A MARKETPLACE_ACCOUNT_DELETION notification for `userId`, signed as eBay signs it (or with another key). */
  deletionNotification(userId: string, username: string, opts: { forged?: boolean } = {}) {
    const message = {
      metadata: { topic: 'MARKETPLACE_ACCOUNT_DELETION', schemaVersion: '1.0', deprecated: false },
      notification: {
        notificationId: `${randomUUID()}_${randomUUID()}`,
        eventDate: new Date().toISOString(),
        publishDate: new Date().toISOString(),
        publishAttemptCount: 1,
        data: { username, userId, eiasToken: randomBytes(30).toString('base64') },
      },
    };
    const body = JSON.stringify(message);
    const key = opts.forged
      ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey
      : this.#signing.privateKey;
    const signature = sign('sha1', Buffer.from(body), key).toString('base64');
    const header = Buffer.from(JSON.stringify({ alg: 'ecdsa', kid: this.kid, signature, digest: 'SHA1' })).toString(
      'base64',
    );
    return { body, signature: header };
  }

  #issue(sellerId: string | null, scopes: string[], refresh?: FakeSeller): FakeReply {
    const access = `v^1.1#i^1#p^3#r^0#I^3#f^0#t^H4sI${randomBytes(32).toString('base64url')}`;
    this.tokens.set(access, { sellerId, scopes, until: Date.now() + ACCESS_LIFETIME_S * 1000 });
    const body: Json = {
      access_token: access,
      expires_in: ACCESS_LIFETIME_S,
      token_type: sellerId ? 'User Access Token' : 'Application Access Token',
    };
    if (refresh) {
      const token = `v^1.1#i^1#r^1#p^3#I^3#f^0#t^Ul4x${randomBytes(32).toString('base64url')}`;
      refresh.refreshTokens.add(token);
      Object.assign(body, { refresh_token: token, refresh_token_expires_in: REFRESH_LIFETIME_S });
    }
    return [200, body];
  }

  async #token(req: Request): Promise<FakeReply> {
    const oauth = (error: string, description: string, status = 400): FakeReply => [
      status,
      { error, error_description: description },
    ];
    const basic = `Basic ${Buffer.from(`${APP.clientId}:${APP.clientSecret}`).toString('base64')}`;
    if (req.headers.get('authorization') !== basic) return oauth('invalid_client', 'client authentication failed', 401);
    if (!(req.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded'))
      return oauth('invalid_request', 'request content type must be application/x-www-form-urlencoded');
    const form = Object.fromEntries(new URLSearchParams(await req.text()));
    this.tokenRequests.push(form);
    if (form.grant_type === 'authorization_code') {
      const issued = form.code ? this.codes.get(form.code) : undefined;
      if (!issued || issued.used)
        return oauth(
          'invalid_grant',
          'the provided authorization grant code is invalid or was issued to another client',
        );
      issued.used = true;
      if (Date.now() - issued.issuedAt > CODE_LIFETIME_S * 1000)
        return oauth('invalid_grant', 'the authorization code has expired');
      if (form.redirect_uri !== issued.ruName)
        return oauth('invalid_grant', 'the redirect_uri does not match the RuName of the grant');
      const seller = this.sellers.get(issued.sellerId)!;
      return this.#issue(seller.userId, USER_SCOPES, seller);
    }
    if (form.grant_type === 'refresh_token') {
      const seller = [...this.sellers.values()].find(
        (s) => form.refresh_token && s.refreshTokens.has(form.refresh_token),
      );
      if (!seller)
        return oauth(
          'invalid_grant',
          'the provided authorization refresh token is invalid or was issued to another client',
        );
      const asked = form.scope ? form.scope.split(' ') : USER_SCOPES;
      if (asked.some((s) => !USER_SCOPES.includes(s)))
        return oauth(
          'invalid_scope',
          'the requested scope is invalid, unknown, malformed, or exceeds the scope granted to the client',
        );
      seller.refreshes++;
      return this.#issue(seller.userId, asked);
    }
    if (form.grant_type === 'client_credentials') {
      if (form.scope !== SCOPE)
        return oauth(
          'invalid_scope',
          'the requested scope is invalid, unknown, malformed, or exceeds the scope granted to the client',
        );
      return this.#issue(null, [SCOPE]);
    }
    return oauth('unsupported_grant_type', `grant type ${form.grant_type} is not supported`);
  }

  async answer(req: Request): Promise<FakeReply> {
    const url = new URL(req.url);
    if (req.method === 'POST' && url.pathname === '/identity/v1/oauth2/token') return this.#token(req);
    const bearer = /^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
    const token = bearer ? this.tokens.get(bearer) : undefined;
    if (!token || token.until <= Date.now()) return invalidToken;
    const [base, contract] = CONTRACTS.find(([prefix]) => url.pathname.startsWith(`${prefix}/`)) ?? [];
    if (!base || !contract) return [404, ebayErrors(2002, `Resource ${url.pathname} not found`)];
    const path = url.pathname.slice(base.length);
    const rawQuery = url.search.slice(1);
    const text = req.method === 'GET' ? '' : await req.text();
    const violations = this.contractLog.record(contract, {
      method: req.method,
      path,
      query: url.searchParams,
      body: text,
      contentType: req.headers.get('content-type') ?? undefined,
    });
    if (violations.length > 0) return [400, ebayErrors(2004, violations.join('; '))];
    const op = contract.check({ method: req.method, path, query: url.searchParams }).operationId!;
    // eBay's documents list in one requirement the scopes of which a token needs any one ("OAuth scope: one of"):
    // the kit's check reads a requirement's list as all of them, so scopes are checked here.
    const needs = scopesOf(base, path, req.method);
    if (!needs.some((s) => token.scopes.includes(s))) {
      const missing = `${op}: the token lacks every one of ${needs.join(', ')}`;
      this.contractLog.violations.push(missing);
      return [403, ebayErrors(1100, `Access denied: insufficient permissions. ${missing}`, 'REQUEST', 'ACCESS')];
    }
    if (
      ['createOrReplaceInventoryItem', 'createOffer', 'updateOffer'].includes(op) &&
      !req.headers.get('content-language')
    )
      return [400, ebayErrors(25709, 'Invalid value for header Content-Language.', 'REQUEST', 'API_INVENTORY')];
    if (base === '/commerce/notification/v1') {
      if (token.sellerId)
        return [403, ebayErrors(1100, 'Access denied: an application token is required.', 'REQUEST', 'ACCESS')];
      this.publicKeyCalls++;
      const kid = decodeURIComponent(path.slice('/public_key/'.length));
      const key = kid === this.kid ? pemLine(this.#signing.publicKey) : this.extraKeys.get(kid);
      return key
        ? [200, { key, algorithm: 'ECDSA', digest: 'SHA1' }]
        : [404, ebayErrors(195000, 'Resource not found.', 'REQUEST', 'API_NOTIFICATION')];
    }
    const seller = token.sellerId ? this.sellers.get(token.sellerId) : undefined;
    if (!seller) return [403, ebayErrors(1100, 'Access denied: a user token is required.', 'REQUEST', 'ACCESS')];
    const body = text ? JSON.parse(text) : undefined;
    seller.calls.push({ operation: op, rawQuery, body, at: Date.now() });
    const fault = seller.takeFault(op);
    if (fault) return fault;
    return answerFor(seller, op, path, url.searchParams, rawQuery, body);
  }
}

const MODELS: Record<string, Json> = {
  '/sell/fulfillment/v1': fulfillmentModel,
  '/sell/inventory/v1': inventoryModel,
  '/sell/account/v1': accountModel,
  '/commerce/notification/v1': notificationModel,
  '/commerce/identity/v1': identityModel,
};

/** The scopes the operation's `security` lists (the vendored document's). */
function scopesOf(base: string, path: string, method: string): string[] {
  const doc = MODELS[base]!;
  const template = Object.keys(doc.paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path))!;
  const security: Json[] = doc.paths[template][method.toLowerCase()].security ?? [];
  return security.flatMap((r) => r.api_auth ?? []);
}

/** eBay serves the PEM on one line (as the SDK's test vectors show). */
const pemLine = (key: KeyObject) => (key.export({ type: 'spki', format: 'pem' }) as string).replace(/\n/g, '');
