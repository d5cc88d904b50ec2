import { ConnectorError, type ConnectorLogger, type HttpClient, type HttpRequest } from '@print-api/connector-kit';
import { TOKEN_MARGIN_MS, type WixCredentials, type WixSettings } from './config.ts';

/** How long a call throttled without Retry-After waits (Wix's budget is per minute). */
export const THROTTLE_WAIT_MS = 15_000;

/** An access token and when it expires (ms since the epoch). */
export interface MintedToken {
  accessToken: string;
  expiresAtMs: number;
}

/**
 * Tokens minted in this process, by instance: a token minted again after a 401 (Wix revoked
 * the cached one) is used by the next call here even before core stores it.
 */
const minted = new Map<string, MintedToken>();

/** Forgets this process's tokens (tests). */
export function forgetMintedTokens(): void {
  minted.clear();
}

/** The freshest token known for the instance: this process's, or the stored one. */
export function freshestToken(credentials: WixCredentials): MintedToken | null {
  const stored =
    credentials.accessToken && credentials.expiresAt
      ? { accessToken: credentials.accessToken, expiresAtMs: Date.parse(credentials.expiresAt) }
      : null;
  const local = minted.get(credentials.instanceId) ?? null;
  if (!stored || Number.isNaN(stored.expiresAtMs)) return local;
  if (!local) return stored;
  return local.expiresAtMs >= stored.expiresAtMs ? local : stored;
}

/**
 * Wix's error body: `{message, details: {applicationError: {code, description}} | {validationError:
 * {fieldViolations}}}`.
 */
export function wixErrorText(body: string): string {
  try {
    const e = JSON.parse(body) as {
      message?: unknown;
      details?: {
        applicationError?: { code?: unknown; description?: unknown };
        validationError?: { fieldViolations?: Array<{ field?: unknown; description?: unknown }> };
      };
    };
    const app = e.details?.applicationError;
    const fields = e.details?.validationError?.fieldViolations
      ?.map((f) => `${String(f.field ?? '?')}: ${String(f.description ?? 'invalid')}`)
      .join('; ');
    const parts = [
      typeof e.message === 'string' ? e.message : null,
      app?.code ? String(app.code) : null,
      fields || null,
    ].filter(Boolean);
    if (parts.length > 0) return parts.join(' - ');
  } catch {
    // not JSON: quoted as it came
  }
  return body.length > 200 ? `${body.slice(0, 200)}…` : body;
}

/**
 * A site's access token: `POST {apiUrl}/oauth2/token` with the client-credentials grant for the
 * instance (`{grant_type, client_id, client_secret, instance_id}`). There is no refresh token:
 * a token is minted again when it expires. A refusal (the app is not, or no longer, installed
 * on that site; wrong app credentials) is `auth`.
 */
export async function mintToken(
  http: HttpClient,
  settings: WixSettings,
  instanceId: string,
  now: Date,
): Promise<MintedToken> {
  // One mint at a time per site in this process: jobs refused together share the new token.
  const pending = minting.get(instanceId);
  if (pending) return pending;
  const mint = mintNow(http, settings, instanceId, now).finally(() => minting.delete(instanceId));
  minting.set(instanceId, mint);
  return mint;
}

const minting = new Map<string, Promise<MintedToken>>();

async function mintNow(http: HttpClient, settings: WixSettings, instanceId: string, now: Date): Promise<MintedToken> {
  const res = await http.request({
    operation: 'createAccessToken',
    method: 'POST',
    url: `${settings.apiUrl}/oauth2/token`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: settings.appId,
      client_secret: settings.appSecret,
      instance_id: instanceId,
    }),
  });
  if (res.status === 429 || res.status >= 500)
    throw ConnectorError.fromStatus('Wix', res.status, res.body, res.headers['retry-after']);
  if (res.status !== 200) {
    throw new ConnectorError(
      'auth',
      `Wix refused an access token for the site (instance ${instanceId}): ${res.status} ${wixErrorText(res.body)}. The app is not installed on that site (or was removed), or this service's Wix app id and secret are wrong (its operator can check them).`,
      { status: res.status },
    );
  }
  let body: { access_token?: unknown; expires_in?: unknown };
  try {
    body = JSON.parse(res.body) as typeof body;
  } catch {
    throw new ConnectorError('upstream_unavailable', 'Wix answered the token request with a body that is not JSON');
  }
  if (typeof body.access_token !== 'string' || !body.access_token)
    throw new ConnectorError('invalid_payload', 'Wix issued no access_token');
  const seconds = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 4 * 3600;
  const token = { accessToken: body.access_token, expiresAtMs: now.getTime() + seconds * 1000 };
  minted.set(instanceId, token);
  return token;
}

/** Whether a token is good for a call now (not within the margin of its expiry). */
export const tokenUsable = (token: MintedToken | null, now: Date): token is MintedToken =>
  token !== null && token.expiresAtMs - now.getTime() > TOKEN_MARGIN_MS;

/**
 * One site's Wix REST APIs, through core's HttpClient: requests carry `Authorization: <token>`
 * (the raw token, no `Bearer`), the site's token minted when none is usable, and minted again
 * once when Wix answers 401 (a token revoked before its time). Failures are typed:
 * 401/403 `auth`, 429 `rate_limited`, 5xx `upstream_unavailable`, other 4xx `invalid_payload`
 * with Wix's message and error code.
 */
export class WixClient {
  readonly #http: HttpClient;
  readonly #settings: WixSettings;
  readonly #credentials: WixCredentials;
  readonly #clock: () => Date;
  readonly #logger: ConnectorLogger | undefined;

  constructor(deps: {
    http: HttpClient;
    settings: WixSettings;
    credentials: WixCredentials;
    clock: () => Date;
    logger?: ConnectorLogger;
  }) {
    this.#http = deps.http;
    this.#settings = deps.settings;
    this.#credentials = deps.credentials;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
  }

  get instanceId(): string {
    return this.#credentials.instanceId;
  }

  /** Calls `path` under the API origin and answers the parsed JSON (`{}` for an empty body). */
  async call<T>(operation: string, method: HttpRequest['method'], path: string, body?: unknown): Promise<T> {
    const now = this.#clock();
    let token = freshestToken(this.#credentials);
    let fresh = false;
    if (!tokenUsable(token, now)) {
      token = await mintToken(this.#http, this.#settings, this.instanceId, now);
      fresh = true;
    }
    for (;;) {
      const res = await this.#http.request({
        operation,
        method,
        url: `${this.#settings.apiUrl}${path}`,
        headers: {
          authorization: token.accessToken,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      if (res.status === 401 && !fresh) {
        fresh = true;
        // Another call may have minted a new one since: use it; else mint.
        const newer = minted.get(this.instanceId);
        if (newer && newer.accessToken !== token.accessToken && tokenUsable(newer, this.#clock())) {
          token = newer;
          continue;
        }
        this.#logger?.info('Wix refused the cached access token; minting a new one', { instanceId: this.instanceId });
        minted.delete(this.instanceId);
        token = await mintToken(this.#http, this.#settings, this.instanceId, this.#clock());
        continue;
      }
      // Wix counts 200 calls a minute per site and may throttle without Retry-After: wait a good part of that minute.
      if (res.status === 429 && !res.headers['retry-after'])
        throw new ConnectorError('rate_limited', `Wix (${operation}) throttled the site: ${wixErrorText(res.body)}`, {
          status: 429,
          retryAfterMs: THROTTLE_WAIT_MS,
        });
      if (res.status < 200 || res.status > 299)
        throw ConnectorError.fromStatus(
          `Wix (${operation})`,
          res.status,
          wixErrorText(res.body),
          res.headers['retry-after'],
        );
      if (!res.body) return {} as T;
      try {
        return JSON.parse(res.body) as T;
      } catch {
        throw new ConnectorError(
          'upstream_unavailable',
          `Wix (${operation}) answered ${res.status} with a body that is not JSON`,
        );
      }
    }
  }
}
