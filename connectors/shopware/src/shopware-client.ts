import { ConnectorError, parseJsonPayload, type HttpClient, type HttpRequest } from '@print-api/connector-kit';
import { z } from 'zod';
import { TOKEN_REFRESH_MARGIN_MS, type ShopwareCredentials } from './config.ts';

const tokenAnswer = z.object({ access_token: z.string().min(1), expires_in: z.number().int().positive() });
const searchAnswer = z.object({ total: z.number().int().nullish(), data: z.array(z.unknown()) });

/** A Criteria of the Admin API's search routes (`components.schemas.Criteria`). */
export type Criteria = Record<string, unknown>;

/** Whether the stored access token is missing or has less than a minute left. */
export function tokenDue(credentials: ShopwareCredentials, now: Date): boolean {
  const expires = credentials.accessTokenExpiresAt ? Date.parse(credentials.accessTokenExpiresAt) : Number.NaN;
  return !credentials.accessToken || !(expires - now.getTime() > TOKEN_REFRESH_MARGIN_MS);
}

/**
 * A client-credentials grant with the integration's keys (`POST /api/oauth/token`). Shopware refuses unknown or
 * deleted keys with 401 `invalid_client` (400 for a malformed grant): both are `auth`, marked `revoked` once the
 * shop was connected (the merchant deleted the integration or changed its secret).
 */
export async function issueToken(
  http: HttpClient,
  credentials: ShopwareCredentials,
  now: Date,
  opts: { connected: boolean },
): Promise<ShopwareCredentials> {
  const res = await http.request({
    method: 'POST',
    url: `${credentials.shopUrl}/api/oauth/token`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: credentials.accessKeyId,
      client_secret: credentials.secretAccessKey,
    }),
    operation: 'token',
  });
  if (res.status === 400 || res.status === 401) {
    throw new ConnectorError(
      'auth',
      opts.connected
        ? 'Shopware refused the integration keys: the integration was deleted or its secret key changed. Connect the shop again with a new integration.'
        : 'Shopware refused the integration keys: check the access key id and secret access key of the integration (Settings > System > Integrations).',
      { status: res.status, revoked: opts.connected },
    );
  }
  if (res.status === 404)
    throw new ConnectorError(
      'invalid_payload',
      `There is no Shopware 6 Admin API at ${credentials.shopUrl}/api: give the shop's address (its storefront or admin URL).`,
      { status: 404 },
    );
  if (res.status !== 200) throw ConnectorError.fromStatus('Shopware', res.status, res.body, res.headers['retry-after']);
  const token = parseJsonPayload(tokenAnswer, res.body, 'Shopware token');
  return {
    ...credentials,
    accessToken: token.access_token,
    accessTokenExpiresAt: new Date(now.getTime() + token.expires_in * 1000).toISOString(),
  };
}

/**
 * The Admin API of one shop (`<shopUrl>/api`) with a bearer token, answers as `application/json` (not JSON:API). A
 * token the shop refuses (401) before it expires is renewed once and the call sent again.
 */
export class ShopwareClient {
  readonly #http: HttpClient;
  readonly #now: () => Date;
  #credentials: ShopwareCredentials;

  constructor(http: HttpClient, credentials: ShopwareCredentials, now: () => Date) {
    this.#http = http;
    this.#credentials = credentials;
    this.#now = now;
  }

  get credentials(): ShopwareCredentials {
    return this.#credentials;
  }

  /** `POST /api/search/<entity>` with a Criteria: the matching entities, as JSON. */
  async search(entity: string, criteria: Criteria, operation: string): Promise<unknown[]> {
    const res = await this.call({ method: 'POST', path: `/search/${entity}`, body: criteria, operation });
    return parseJsonPayload(searchAnswer, res.body, `Shopware ${entity} search`).data;
  }

  /**
   * A call of the Admin API; statuses other than 2xx (and `allowed`) are ConnectorErrors: a write Shopware refuses
   * (400) says why in `errors[].detail`.
   */
  async call(
    req: { method: HttpRequest['method']; path: string; body?: unknown; operation: string },
    allowed: number[] = [],
  ): Promise<{ status: number; body: string }> {
    if (tokenDue(this.#credentials, this.#now())) await this.#renew();
    let res = await this.#send(req);
    if (res.status === 401) {
      await this.#renew();
      res = await this.#send(req);
    }
    if ((res.status >= 200 && res.status < 300) || allowed.includes(res.status)) return res;
    const details = errorDetails(res.body);
    if (res.status === 400 && details)
      throw new ConnectorError('invalid_payload', `Shopware refused the request: ${details}`, { status: 400 });
    if (res.status === 403)
      throw new ConnectorError(
        'auth',
        `Shopware refused ${req.operation} (403): the integration's role lacks the permission. In Settings > System > Integrations, tick Administrator or give it a role that reads orders, products, sales channels and taxes and writes order deliveries and products.`,
        { status: 403 },
      );
    throw ConnectorError.fromStatus('Shopware', res.status, res.body, res.headers['retry-after']);
  }

  async #renew(): Promise<void> {
    this.#credentials = await issueToken(this.#http, this.#credentials, this.#now(), { connected: true });
  }

  #send(req: { method: HttpRequest['method']; path: string; body?: unknown; operation: string }) {
    return this.#http.request({
      method: req.method,
      url: `${this.#credentials.shopUrl}/api${req.path}`,
      headers: {
        authorization: `Bearer ${this.#credentials.accessToken}`,
        accept: 'application/json',
        ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
      operation: req.operation,
    });
  }
}

/** Shopware's error answer (`components.schemas.failure`): `{errors: [{code, status, title, detail}]}`. */
function errorDetails(body: string): string | undefined {
  try {
    const errors = (JSON.parse(body) as { errors?: Array<{ detail?: unknown; title?: unknown }> }).errors ?? [];
    const texts = errors.map((e) => String(e.detail ?? e.title ?? '')).filter(Boolean);
    return texts.length ? texts.join('; ').slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}
