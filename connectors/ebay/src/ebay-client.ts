import { ConnectorError, type ConnectorContext, type HttpRequest, type HttpResponse } from '@print-api/connector-kit';
import type { EbaySettings } from './config.ts';

type Context = ConnectorContext<EbaySettings>;

/** `{errors: [{errorId, domain, category, message, longMessage}]}` (eBay's error shape), else the body's start. */
export function ebayErrorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as {
      errors?: Array<{ errorId?: number; message?: string; longMessage?: string }>;
      error?: string;
      error_description?: string;
    };
    if (Array.isArray(parsed.errors) && parsed.errors.length > 0)
      return parsed.errors.map((e) => `${e.errorId ?? '?'} ${e.longMessage || e.message || ''}`.trim()).join('; ');
    if (typeof parsed.error === 'string')
      return parsed.error_description ? `${parsed.error}: ${parsed.error_description}` : parsed.error;
  } catch {
    // not JSON
  }
  return body.length > 300 ? `${body.slice(0, 300)}…` : body;
}

/** eBay's answer as the pipeline's typed failure. */
export function ebayError(res: HttpResponse): ConnectorError {
  return ConnectorError.fromStatus('eBay', res.status, ebayErrorText(res.body), res.headers['retry-after']);
}

export interface CallOptions {
  method: HttpRequest['method'];
  /** The path under the origin (`/sell/fulfillment/v1/order`). */
  path: string;
  /** Sent exactly as given (eBay's filter syntax wants its own percent-encoding). */
  rawQuery?: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  headers?: Record<string, string>;
  operation: string;
  /** The Identity API lives on its own origin. */
  origin?: 'api' | 'identity';
  /** Statuses answered as null instead of failing (a 404 of something already gone). */
  allow?: number[];
}

/** eBay's REST APIs through core's HTTP client, with a Bearer token (the seller's, or the application's). */
export class EbayClient {
  readonly #ctx: Context;
  #token: string;
  #renew: (() => Promise<string>) | undefined;

  /**
   * `renew`: a new access token, when eBay refuses this one (401: expired early, or revoked with the seller's consent,
   * which the renewal then finds out and reports as revoked). Once per client.
   */
  constructor(ctx: Context, token: string, renew?: () => Promise<string>) {
    this.#ctx = ctx;
    this.#token = token;
    this.#renew = renew;
  }

  /** The JSON answer (null for an empty body or an allowed status), with the response's headers. */
  async send<T = unknown>(opts: CallOptions): Promise<{ body: T | null; headers: Record<string, string> }> {
    const base = opts.origin === 'identity' ? this.#ctx.settings.identityUrl : this.#ctx.settings.apiUrl;
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) query.set(k, String(v));
    const search = [opts.rawQuery, query.toString()].filter(Boolean).join('&');
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#token}`,
      accept: 'application/json',
      ...opts.headers,
    };
    const req: HttpRequest = {
      method: opts.method,
      url: `${base}${opts.path}${search ? `?${search}` : ''}`,
      headers,
      operation: opts.operation,
    };
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      req.body = JSON.stringify(opts.json);
    }
    let res = await this.#ctx.http.request(req);
    if (res.status === 401 && this.#renew) {
      const renew = this.#renew;
      this.#renew = undefined;
      this.#token = await renew();
      res = await this.#ctx.http.request({ ...req, headers: { ...headers, authorization: `Bearer ${this.#token}` } });
    }
    if (opts.allow?.includes(res.status)) return { body: null, headers: res.headers };
    if (res.status < 200 || res.status >= 300) throw ebayError(res);
    if (!res.body.trim()) return { body: null, headers: res.headers };
    try {
      return { body: JSON.parse(res.body) as T, headers: res.headers };
    } catch {
      throw new ConnectorError('invalid_payload', `eBay answered ${opts.operation} with a body that is not JSON`);
    }
  }

  async call<T = unknown>(opts: CallOptions): Promise<T | null> {
    return (await this.send<T>(opts)).body;
  }
}
