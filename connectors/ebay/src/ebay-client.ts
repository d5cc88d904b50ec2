import { ConnectorError, type ConnectorContext, type HttpRequest, type HttpResponse } from '@print-api/connector-kit';
import type { EbaySettings } from './config.ts';

/** `{errors: [{errorId, message, longMessage}]}` (eBay's error shape) or OAuth's `{error, error_description}`. */
export function ebayErrorText(body: string): string {
  try {
    const p = JSON.parse(body);
    if (Array.isArray(p.errors) && p.errors.length > 0)
      return p.errors.map((e: any) => `${e.errorId ?? '?'} ${e.longMessage || e.message || ''}`.trim()).join('; ');
    if (typeof p.error === 'string') return p.error_description ? `${p.error}: ${p.error_description}` : p.error;
  } catch {
    // not JSON
  }
  return body.length > 300 ? `${body.slice(0, 300)}…` : body;
}

/** eBay's answer as the pipeline's typed failure. */
export const ebayError = (res: HttpResponse): ConnectorError =>
  ConnectorError.fromStatus('eBay', res.status, ebayErrorText(res.body), res.headers['retry-after']);

export interface CallOptions {
  method: HttpRequest['method'];
  /** The path under the origin (`/sell/fulfillment/v1/order`). */
  path: string;
  /** Sent exactly as given (eBay's filter syntax wants its own percent-encoding), before `query`. */
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
  readonly #ctx: ConnectorContext<EbaySettings>;
  #token: string;
  #renew: (() => Promise<string>) | undefined;

  /**
   * `renew`: a new access token, when eBay refuses this one (401: expired early, or revoked by the seller, which the
   * renewal then finds out and reports as revoked). Once per client.
   */
  constructor(ctx: ConnectorContext<EbaySettings>, token: string, renew?: () => Promise<string>) {
    this.#ctx = ctx;
    this.#token = token;
    this.#renew = renew;
  }

  /** The JSON answer; null for an empty body or an allowed status. */
  async call<T = unknown>(opts: CallOptions): Promise<T | null> {
    const base = opts.origin === 'identity' ? this.#ctx.settings.identityUrl : this.#ctx.settings.apiUrl;
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) query.set(k, String(v));
    const search = [opts.rawQuery, query.toString()].filter(Boolean).join('&');
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (opts.json !== undefined) headers['content-type'] = 'application/json';
    const req = (): HttpRequest => ({
      method: opts.method,
      url: `${base}${opts.path}${search ? `?${search}` : ''}`,
      headers: { ...headers, authorization: `Bearer ${this.#token}` },
      ...(opts.json !== undefined ? { body: JSON.stringify(opts.json) } : {}),
      operation: opts.operation,
    });
    let res = await this.#ctx.http.request(req());
    if (res.status === 401 && this.#renew) {
      const renew = this.#renew;
      this.#renew = undefined;
      this.#token = await renew();
      res = await this.#ctx.http.request(req());
    }
    if (opts.allow?.includes(res.status)) return null;
    if (res.status < 200 || res.status >= 300) throw ebayError(res);
    if (!res.body.trim()) return null;
    try {
      return JSON.parse(res.body) as T;
    } catch {
      throw new ConnectorError('invalid_payload', `eBay answered ${opts.operation} with a body that is not JSON`);
    }
  }
}
