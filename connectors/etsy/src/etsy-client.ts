import {
  ConnectorError,
  settingVariable,
  type ConnectorLogger,
  type HttpClient,
  type HttpRequest,
  type HttpResponse,
  type MultipartField,
} from '@print-api/connector-kit';
import type { EtsySettings } from './config.ts';

/** How long a job waits when Etsy says the app's day is used up (a sliding 24-hour window, in buckets). */
export const DAY_EXHAUSTED_WAIT_MS = 15 * 60_000;
/** How long a job waits when Etsy answers 429 for the second's budget without saying how long. */
export const SECOND_EXHAUSTED_WAIT_MS = 1000;

/** Etsy's budget as its response headers state it (per app: every shop shares it). */
export interface EtsyBudget {
  perSecond: number | null;
  remainingThisSecond: number | null;
  perDay: number | null;
  remainingToday: number | null;
}

export function readBudget(headers: Record<string, string>): EtsyBudget {
  const n = (name: string) => {
    const v = headers[name];
    const parsed = v === undefined ? NaN : Number(v);
    return Number.isFinite(parsed) ? parsed : null;
  };
  return {
    perSecond: n('x-limit-per-second'),
    remainingThisSecond: n('x-remaining-this-second'),
    perDay: n('x-limit-per-day'),
    remainingToday: n('x-remaining-today'),
  };
}

/** `{"error": "…"}` (Etsy's ErrorSchema), or OAuth's `{error, error_description}`, else the body's start. */
export function etsyErrorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; error_description?: unknown };
    if (typeof parsed.error === 'string')
      return typeof parsed.error_description === 'string'
        ? `${parsed.error}: ${parsed.error_description}`
        : parsed.error;
  } catch {
    // not JSON
  }
  return body.length > 300 ? `${body.slice(0, 300)}…` : body;
}

/** `x-api-key: <keystring>:<shared secret>`: required on every call since 9 February 2026. */
export function apiKeyHeader(settings: EtsySettings): string {
  return `${settings.keystring}:${settings.sharedSecret}`;
}

/**
 * Open API v3 through core's HTTP client: every call with `x-api-key` and the shop's Bearer
 * token; Etsy's errors typed for the pipeline; its rate-limit headers honoured. One client
 * serves one job's calls: when Etsy says this second's budget is spent, the next call waits
 * for the next second; when the day's is spent, the next call is not made and the job waits.
 */
export class EtsyClient {
  readonly #http: HttpClient;
  readonly #settings: EtsySettings;
  readonly #accessToken: string | null;
  readonly #logger: ConnectorLogger | undefined;
  #budget: EtsyBudget | null = null;
  #budgetAt = 0;

  constructor(opts: {
    http: HttpClient;
    settings: EtsySettings;
    accessToken: string | null;
    logger?: ConnectorLogger;
  }) {
    this.#http = opts.http;
    this.#settings = opts.settings;
    this.#accessToken = opts.accessToken;
    this.#logger = opts.logger;
  }

  get budget(): EtsyBudget | null {
    return this.#budget;
  }

  /**
   * A JSON call under `/v3/application`; `form` is sent `application/x-www-form-urlencoded`, `json` as JSON,
   * `multipart` as `multipart/form-data` (a file upload).
   */
  async call<T = unknown>(opts: {
    method: HttpRequest['method'];
    path: string;
    query?: Record<string, string | number | boolean | undefined>;
    form?: Record<string, string>;
    json?: unknown;
    multipart?: MultipartField[];
    operation: string;
  }): Promise<T> {
    const url = new URL(`${this.#settings.apiUrl}/v3/application${opts.path}`);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { 'x-api-key': apiKeyHeader(this.#settings), accept: 'application/json' };
    if (this.#accessToken) headers.authorization = `Bearer ${this.#accessToken}`;
    const req: HttpRequest = { method: opts.method, url: url.toString(), headers, operation: opts.operation };
    if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      req.body = new URLSearchParams(opts.form).toString();
    } else if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      req.body = JSON.stringify(opts.json);
    } else if (opts.multipart) {
      req.multipart = opts.multipart;
    }
    const res = await this.send(req);
    if (res.status < 200 || res.status >= 300) throw this.error(res);
    try {
      return parseEtsyJson(res.body) as T;
    } catch {
      throw new ConnectorError('invalid_payload', `Etsy answered ${opts.operation} with a body that is not JSON`);
    }
  }

  /** Sends one request under the budget Etsy last stated (waiting out a spent second, refusing a spent day). */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const b = this.#budget;
    if (b?.remainingToday === 0) {
      throw new ConnectorError(
        'rate_limited',
        `Etsy's daily request budget for this app (${b.perDay ?? '?'} a day) is spent`,
        { retryAfterMs: DAY_EXHAUSTED_WAIT_MS },
      );
    }
    if (b?.remainingThisSecond === 0) {
      const wait = this.#budgetAt + 1000 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    const res = await this.#http.request(req);
    const budget = readBudget(res.headers);
    if (budget.remainingThisSecond !== null || budget.remainingToday !== null) {
      this.#budget = budget;
      this.#budgetAt = Date.now();
      if (budget.perDay && budget.remainingToday !== null && budget.remainingToday < budget.perDay * 0.05) {
        this.#logger?.warn("Etsy's daily request budget is nearly spent", {
          remainingToday: budget.remainingToday,
          perDay: budget.perDay,
        });
      }
    }
    return res;
  }

  /** Etsy's answer as the pipeline's typed failure. */
  error(res: HttpResponse): ConnectorError {
    const text = etsyErrorText(res.body);
    if (res.status === 429) {
      const budget = readBudget(res.headers);
      const seconds = Number(res.headers['retry-after']);
      const retryAfterMs =
        Number.isFinite(seconds) && seconds > 0
          ? seconds * 1000
          : budget.remainingToday === 0
            ? DAY_EXHAUSTED_WAIT_MS
            : SECOND_EXHAUSTED_WAIT_MS;
      return new ConnectorError('rate_limited', `Etsy rate limit reached: ${text}`, { status: 429, retryAfterMs });
    }
    if (res.status === 403 && /x-api-key|shared secret|api key/i.test(text)) {
      return new ConnectorError(
        'auth',
        `Etsy refused our app key (${text}): check ${settingVariable('ETSY', 'keystring')} and ${settingVariable('ETSY', 'sharedSecret')}`,
        { status: 403 },
      );
    }
    return ConnectorError.fromStatus('Etsy', res.status, text, res.headers['retry-after']);
  }
}

/**
 * Etsy's ids are int64 numbers in its document (receipt, transaction, listing, product ids):
 * beyond 2^53 a JS number loses digits, so an integer that is not exactly representable is kept
 * as the digits of the source text (the id schemas take digit strings).
 */
export function parseEtsyJson(text: string): unknown {
  return JSON.parse(text, function (_key: string, value: unknown, context?: { source?: string }) {
    if (
      typeof value === 'number' &&
      context?.source !== undefined &&
      /^-?\d+$/.test(context.source) &&
      !Number.isSafeInteger(value)
    )
      return context.source;
    return value;
  } as (this: unknown, key: string, value: unknown) => unknown);
}
