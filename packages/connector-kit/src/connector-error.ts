/**
 * Why a platform call failed, as the pipeline needs to know it:
 * - `auth`: credentials revoked or expired beyond refresh: stop, mark the store, tell the merchant.
 * - `rate_limited`: wait `retryAfterMs`, then try again (no attempt spent).
 * - `invalid_payload`: the platform sent something we cannot use: record it, do not retry.
 * - `upstream_unavailable`: 5xx, timeouts, network: retry with backoff.
 */
export type ConnectorErrorKind = 'auth' | 'rate_limited' | 'invalid_payload' | 'upstream_unavailable';

export class ConnectorError extends Error {
  override name = 'ConnectorError';
  readonly kind: ConnectorErrorKind;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  /**
   * With `auth`: the merchant withdrew our access on the platform (not a passing failure): core
   * disconnects the store, with this message as its `lastError`.
   */
  readonly revoked: boolean;

  constructor(
    kind: ConnectorErrorKind,
    message: string,
    opts: { retryAfterMs?: number; status?: number; cause?: unknown; revoked?: boolean } = {},
  ) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.kind = kind;
    this.retryAfterMs = opts.retryAfterMs;
    this.status = opts.status;
    this.revoked = opts.revoked === true;
  }

  /**
   * Maps an HTTP answer of a platform to the right kind (401/403 auth, 429 rate_limited, 5xx upstream, other 4xx
   * invalid).
   */
  static fromStatus(platform: string, status: number, body: string, retryAfterHeader?: string | null): ConnectorError {
    const snippet = body.length > 300 ? `${body.slice(0, 300)}…` : body;
    if (status === 401 || status === 403)
      return new ConnectorError('auth', `${platform} refused our credentials (${status}): ${snippet}`, { status });
    if (status === 429) {
      const seconds = Number(retryAfterHeader);
      return new ConnectorError('rate_limited', `${platform} rate limit reached`, {
        status,
        retryAfterMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 2000,
      });
    }
    if (status >= 500)
      return new ConnectorError('upstream_unavailable', `${platform} answered ${status}: ${snippet}`, { status });
    return new ConnectorError('invalid_payload', `${platform} answered ${status}: ${snippet}`, { status });
  }
}

/** One platform option the merchant must choose, with the store's choices (its shipping profiles, by name). */
export interface PlatformOptionChoice {
  /** The `platformOptions` key that takes the choice (`shippingProfileId`). */
  option: string;
  /** What it is, as the platform calls it ("shipping profile"). */
  label: string;
  choices: Array<{ id: string; name: string }>;
}

/**
 * A publish the store's own set-up cannot decide: it has several of something a listing needs (Etsy's shipping
 * profiles) and the merchant must choose one. Core answers 422 `platform_options_required` naming the choices.
 */
export class PlatformOptionsRequired extends ConnectorError {
  override name = 'PlatformOptionsRequired';
  readonly options: PlatformOptionChoice[];

  constructor(platform: string, options: PlatformOptionChoice[]) {
    super(
      'invalid_payload',
      `The ${platform} store has several of what a listing needs: choose ${options
        .map(
          (o) =>
            `a ${o.label} (platformOptions.${o.option}: ${o.choices.map((c) => `${c.id} "${c.name}"`).join(', ')})`,
        )
        .join('; ')}.`,
    );
    this.options = options;
  }
}
