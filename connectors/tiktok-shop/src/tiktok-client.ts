import { ConnectorError, type HttpClient } from '@print-api/connector-kit';
import { renewTokens } from './install-tokens.ts';
import type { TikTokCredentials, TikTokSettings } from './config.ts';
import { classify, envelopeError, type Envelope } from './errors.ts';
import { parseTikTokJson } from './json.ts';
import { signRequest } from './signing.ts';

export interface TikTokCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The API path (`/order/202309/orders/search`): signed as it is sent. */
  path: string;
  query?: Record<string, string>;
  /** Serialised once; those exact bytes are signed and sent. */
  body?: unknown;
  /** The metrics label (`searchOrders`) and, in messages, what the call was for. */
  operation: string;
  /** Shop-scoped calls carry `shop_cipher`; `/authorization/*` and `/seller/*` do not. */
  shopScoped?: boolean;
}

/**
 * TikTok Shop's Open API for one shop, through core's client only. Every call carries
 * `app_key`, `timestamp` (unix seconds), `shop_cipher` (shop-scoped paths) and `sign` (hex
 * HMAC-SHA256 over `secret + path + sorted query pairs + exact body + secret`), the access token
 * in `x-tts-access-token`, and `Content-Type: application/json`.
 *
 * Answers are envelopes (`{code, message, request_id, data}`): `code` 0 is success whatever the
 * HTTP status, and errors come as HTTP 200 too. A token error (expired, invalid, revoked) renews
 * the token with the refresh token and sends the call once more (freshly signed); throttling is
 * `rate_limited` (core waits, no attempt spent); TikTok's own failures are
 * `upstream_unavailable`; anything else a clear `invalid_payload` naming the code and message.
 * A renewed token is handed to `onRenewed`, so it is stored (see `refreshCredentials`).
 */
export class TikTokClient {
  readonly #http: HttpClient;
  readonly #settings: TikTokSettings;
  readonly #clock: () => Date;
  readonly #onRenewed: (renewed: TikTokCredentials, previous: TikTokCredentials) => void;
  #credentials: TikTokCredentials;

  constructor(opts: {
    http: HttpClient;
    settings: TikTokSettings;
    credentials: TikTokCredentials;
    clock: () => Date;
    onRenewed?: (renewed: TikTokCredentials, previous: TikTokCredentials) => void;
  }) {
    this.#http = opts.http;
    this.#settings = opts.settings;
    this.#clock = opts.clock;
    this.#credentials = opts.credentials;
    this.#onRenewed = opts.onRenewed ?? (() => undefined);
  }

  get credentials(): TikTokCredentials {
    return this.#credentials;
  }

  /** One call; `data` of a successful answer. */
  async call<T>(call: TikTokCall): Promise<T> {
    let renewed = false;
    for (;;) {
      const { status, retryAfter, env } = await this.#send(call);
      if (env.code === 0) return (env.data ?? {}) as T;
      if (!renewed && classify(env.code, env.message ?? '', status) === 'token') {
        const previous = this.#credentials;
        this.#credentials = await renewTokens(this.#http, this.#settings, previous, this.#clock());
        this.#onRenewed(this.#credentials, previous);
        renewed = true;
        continue;
      }
      throw envelopeError(call.operation, env, status, retryAfter);
    }
  }

  async #send(call: TikTokCall): Promise<{ status: number; retryAfter: string | undefined; env: Envelope }> {
    const query: Record<string, string> = {
      ...call.query,
      app_key: this.#settings.appKey,
      timestamp: String(Math.floor(this.#clock().getTime() / 1000)),
      ...(call.shopScoped === false ? {} : { shop_cipher: this.#credentials.shopCipher }),
    };
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const sign = signRequest({ appSecret: this.#settings.appSecret, path: call.path, query, body });
    const url = `${this.#settings.apiUrl}${call.path}?${new URLSearchParams({ ...query, sign })}`;
    const res = await this.#http.request({
      method: call.method,
      url,
      headers: { 'content-type': 'application/json', 'x-tts-access-token': this.#credentials.accessToken },
      ...(body === undefined ? {} : { body }),
      operation: call.operation,
    });
    const retryAfter = res.headers['retry-after'];
    let env: Envelope;
    try {
      env = parseTikTokJson(res.body) as Envelope;
    } catch {
      throw ConnectorError.fromStatus(
        'TikTok Shop',
        res.status < 400 ? 502 : res.status,
        `${call.operation}: not a TikTok Shop answer (${res.body.slice(0, 80)})`,
        retryAfter,
      );
    }
    if (typeof env !== 'object' || env === null || typeof env.code !== 'number') {
      throw ConnectorError.fromStatus(
        'TikTok Shop',
        res.status < 400 ? 502 : res.status,
        `${call.operation}: the answer carries no code`,
        retryAfter,
      );
    }
    return { status: res.status, retryAfter, env };
  }
}
