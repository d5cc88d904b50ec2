import {
  ConnectorError,
  parseJsonPayload,
  settingVariable,
  type ConnectorContext,
  type HttpResponse,
} from '@print-api/connector-kit';
import { z } from 'zod';
import { REFRESH_MARGIN_MS, type AmazonCredentials, type AmazonSettings } from './config.ts';

export type AmazonContext = ConnectorContext<AmazonSettings>;

const tokenSchema = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().positive(),
});
type LwaToken = z.infer<typeof tokenSchema>;

/** The Selling Partner API's error body: `{"errors":[{"code","message","details"}]}`. */
function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as {
      errors?: Array<{ code?: string; message?: string }>;
      error?: string;
      error_description?: string;
    };
    if (Array.isArray(parsed.errors) && parsed.errors.length > 0)
      return parsed.errors.map((e) => `${e.code ?? 'Error'}: ${e.message ?? ''}`.trim()).join('; ');
    if (parsed.error) return `${parsed.error}${parsed.error_description ? `: ${parsed.error_description}` : ''}`;
  } catch {
    // not JSON: the text itself
  }
  return body.length > 300 ? `${body.slice(0, 300)}…` : body;
}

/** The app's Login with Amazon credentials: the connector loads without them, but no flow works. */
export function lwaApp(ctx: AmazonContext): { clientId: string; clientSecret: string } {
  const { lwaClientId, lwaClientSecret } = ctx.settings;
  if (!lwaClientId || !lwaClientSecret) {
    throw new ConnectorError(
      'invalid_payload',
      `Amazon is not set up on this server: set ${settingVariable('AMAZON', 'lwaClientId')} and ${settingVariable('AMAZON', 'lwaClientSecret')} (the app's Login with Amazon credentials).`,
    );
  }
  return { clientId: lwaClientId, clientSecret: lwaClientSecret };
}

/**
 * Login with Amazon's token endpoint (`POST {lwaUrl}/auth/o2/token`, form-encoded, the app's
 * client id and secret in the body). `400 invalid_grant` is a code or refresh token Amazon no
 * longer honours; `401 invalid_client` is our app's secret (rotated?), not the seller's doing.
 */
async function lwaToken(
  ctx: AmazonContext,
  grant: Record<string, string>,
  what: 'code' | 'refresh',
): Promise<LwaToken> {
  const app = lwaApp(ctx);
  const body = new URLSearchParams({ ...grant, client_id: app.clientId, client_secret: app.clientSecret }).toString();
  const res = await ctx.http.request({
    method: 'POST',
    url: `${ctx.settings.lwaUrl}/auth/o2/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', accept: 'application/json' },
    body,
    operation: what === 'code' ? 'lwaExchangeCode' : 'lwaRefreshToken',
  });
  if (res.status === 200) {
    const parsed = tokenSchema.safeParse(safeJson(res.body));
    if (!parsed.success)
      throw new ConnectorError(
        'invalid_payload',
        `Login with Amazon answered a token we cannot read: ${parsed.error.issues[0]?.message}`,
      );
    return parsed.data;
  }
  const text = errorText(res.body);
  if (res.status === 400 && /invalid_grant/.test(res.body)) {
    if (what === 'code')
      throw new ConnectorError(
        'auth',
        `Amazon refused the authorisation code (${text}): it was used already, has expired (codes live five minutes) or was not issued to this app. Nothing was connected: open the install link again.`,
        { status: 400 },
      );
    throw new ConnectorError(
      'auth',
      `Amazon no longer honours this store's authorisation (${text}): the seller removed the app in Seller Central (Manage Your Apps) or did not renew it within 365 days. Connect the store again to resume.`,
      { status: 400, revoked: true },
    );
  }
  if (res.status === 401 || (res.status === 400 && /invalid_client|unauthorized_client/.test(res.body))) {
    throw new ConnectorError(
      'auth',
      `Login with Amazon refused our app's credentials (${text}): check ${settingVariable('AMAZON', 'lwaClientId')} and ${settingVariable('AMAZON', 'lwaClientSecret')} (the secret must be rotated every 180 days).`,
      { status: res.status },
    );
  }
  throw ConnectorError.fromStatus('Login with Amazon', res.status, text, res.headers['retry-after']);
}

export function exchangeCode(ctx: AmazonContext, code: string, redirectUri: string): Promise<LwaToken> {
  return lwaToken(ctx, { grant_type: 'authorization_code', code, redirect_uri: redirectUri }, 'code');
}

/** A fresh access token (an hour) from the seller's refresh token. */
export async function refreshAccess(ctx: AmazonContext, credentials: AmazonCredentials): Promise<AmazonCredentials> {
  const token = await lwaToken(
    ctx,
    { grant_type: 'refresh_token', refresh_token: credentials.refreshToken },
    'refresh',
  );
  return {
    ...credentials,
    accessToken: token.access_token,
    accessTokenExpiresAt: new Date(ctx.clock().getTime() + token.expires_in * 1000).toISOString(),
    refreshToken: token.refresh_token ?? credentials.refreshToken,
  };
}

/** Null while the access token has more than a few minutes to live, else renewed credentials. */
/** Whether there is no access token yet, or it is within REFRESH_MARGIN_MS of its expiry. */
export function refreshDue(credentials: AmazonCredentials, now: Date): boolean {
  return !(
    credentials.accessToken &&
    credentials.accessTokenExpiresAt &&
    Date.parse(credentials.accessTokenExpiresAt) - now.getTime() > REFRESH_MARGIN_MS
  );
}

export async function refreshIfDue(
  ctx: AmazonContext,
  credentials: AmazonCredentials,
): Promise<AmazonCredentials | null> {
  if (!refreshDue(credentials, ctx.clock())) return null;
  return refreshAccess(ctx, credentials);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * One seller's Selling Partner API: every call carries `x-amz-access-token` (no SigV4). A 403
 * is checked against Login with Amazon once: a refresh token it no longer honours means the
 * seller withdrew our access (the store is disconnected); otherwise the role is missing.
 */
export class SpApi {
  readonly #ctx: AmazonContext;
  #credentials: AmazonCredentials;

  constructor(ctx: AmazonContext, credentials: AmazonCredentials) {
    this.#ctx = ctx;
    this.#credentials = credentials;
  }

  async #token(): Promise<string> {
    const renewed = await refreshIfDue(this.#ctx, this.#credentials);
    if (renewed) this.#credentials = renewed;
    return this.#credentials.accessToken!;
  }

  /**
   * GET or POST a path (with its query) of the SP-API; answers the response of a 2xx, throws a typed error otherwise.
   */
  async call(req: {
    method: 'GET' | 'POST';
    path: string;
    query?: Record<string, string | undefined>;
    body?: unknown;
    operation: string;
  }): Promise<HttpResponse> {
    const query = new URLSearchParams(
      Object.entries(req.query ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
    ).toString();
    const url = `${this.#ctx.settings.apiUrl}${req.path}${query ? `?${query}` : ''}`;
    const send = async (token: string) =>
      this.#ctx.http.request({
        method: req.method,
        url,
        headers: {
          'x-amz-access-token': token,
          accept: 'application/json',
          'user-agent': 'PrintAPI/1.0 (Language=TypeScript; Platform=Node)',
          ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
        operation: req.operation,
      });
    let res = await send(await this.#token());
    if (res.status === 403) {
      // Expired or revoked? Ask Login with Amazon once: a refused refresh token is a revocation (thrown from there).
      this.#credentials = await refreshAccess(this.#ctx, this.#credentials);
      res = await send(this.#credentials.accessToken!);
      if (res.status === 403)
        throw new ConnectorError(
          'auth',
          `Amazon refused ${req.operation} (403 ${errorText(res.body)}): the app lacks the role it needs for this seller (orders need Inventory and Order Tracking, addresses Direct-to-Consumer Delivery).`,
          { status: 403 },
        );
    }
    if (res.status >= 200 && res.status < 300) return res;
    if (res.status === 429) {
      // No Retry-After on SP-API throttling: x-amzn-RateLimit-Limit is the operation's rate (calls a second).
      const rate = Number(res.headers['x-amzn-ratelimit-limit']);
      const waitMs = Number.isFinite(rate) && rate > 0 ? Math.min(Math.ceil(1000 / rate), 300_000) : 2000;
      throw new ConnectorError('rate_limited', `Amazon throttled ${req.operation} (${errorText(res.body)})`, {
        status: 429,
        retryAfterMs: waitMs,
      });
    }
    throw ConnectorError.fromStatus(
      'Amazon',
      res.status,
      `${req.operation}: ${errorText(res.body)}`,
      res.headers['retry-after'],
    );
  }

  async json<T>(schema: z.ZodType<T>, req: Parameters<SpApi['call']>[0]): Promise<T> {
    const res = await this.call(req);
    return parseJsonPayload(schema, res.body, `Amazon's ${req.operation} answer`);
  }
}

/**
 * The seller's marketplaces (`GET /sellers/v1/marketplaceParticipations`): checks the token works and names the store.
 */
const participationsSchema = z.object({
  payload: z.array(
    z.object({
      marketplace: z.object({ id: z.string(), name: z.string().optional(), countryCode: z.string().optional() }),
      participation: z.object({ isParticipating: z.boolean() }),
      storeName: z.string().optional(),
    }),
  ),
});

/**
 * The seller's marketplaces among those wanted: every one the seller chose must be one it sells
 * in (`strict`); the operator's default list is narrowed to those it sells in.
 */
export async function describeSeller(
  api: SpApi,
  sellingPartnerId: string,
  wanted: string[],
  strict: boolean,
): Promise<{ name: string; marketplaceIds: string[] }> {
  const { payload } = await api.json(participationsSchema, {
    method: 'GET',
    path: '/sellers/v1/marketplaceParticipations',
    operation: 'getMarketplaceParticipations',
  });
  const participating = new Map(
    payload.filter((p) => p.participation.isParticipating).map((p) => [p.marketplace.id, p]),
  );
  const sells = [...participating.keys()].join(', ') || 'no marketplace';
  const missing = wanted.filter((id) => !participating.has(id));
  if (strict && missing.length > 0)
    throw new ConnectorError(
      'invalid_payload',
      `Seller ${sellingPartnerId} does not sell in ${missing.join(', ')}; it sells in ${sells}. Choose among those.`,
    );
  const marketplaceIds = wanted.filter((id) => participating.has(id));
  if (marketplaceIds.length === 0)
    throw new ConnectorError(
      'invalid_payload',
      `Seller ${sellingPartnerId} sells in none of the marketplaces ${wanted.join(', ')}; it sells in ${sells}. Choose among those.`,
    );
  const first = participating.get(marketplaceIds[0]!)!;
  return {
    name: first.storeName ?? `Amazon seller ${sellingPartnerId} (${first.marketplace.name ?? first.marketplace.id})`,
    marketplaceIds,
  };
}
