import { ConnectionError, retryAfterMs } from './errors.ts';

export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  maxRetries: number;
  /**
   * The longest wait the client accepts, from Retry-After or backoff (default 60 s); a longer Retry-After is not waited
   * for.
   */
  maxRetryDelayMs: number;
  /** Each attempt's time limit (default 60 s). */
  timeoutMs: number;
  fetch: typeof fetch;
  /** Told of each retry (logging). */
  onRetry?: ((info: { attempt: number; delayMs: number; status: number | undefined; url: string }) => void) | undefined;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * A fetch that retries: a 429 always (the request was not processed), Retry-After honoured;
 * a 5xx or a lost connection only when repeating is safe: an idempotent method or a request
 * with an Idempotency-Key (order placement), which the service answers once however often it
 * arrives. Other waits back off exponentially with jitter.
 */
export function retryingFetch(options: RetryOptions): (input: Request) => Promise<Response> {
  return async (input: Request) => {
    const safe = IDEMPOTENT.has(input.method) || input.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const backoff = Math.min(options.maxRetryDelayMs, 500 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
      let response: Response;
      try {
        response = await options.fetch(input.clone(), { signal: AbortSignal.timeout(options.timeoutMs) });
      } catch (err) {
        if (attempt < options.maxRetries && safe) {
          options.onRetry?.({ attempt: attempt + 1, delayMs: backoff, status: undefined, url: input.url });
          await sleep(backoff);
          continue;
        }
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
        throw new ConnectionError({
          status: 0,
          code: 'connection_failed',
          message: `${input.method} ${input.url} got no answer (${cause}): ${(err as Error).message}`,
        });
      }
      const retryable = response.status === 429 || (safe && [500, 502, 503, 504].includes(response.status));
      if (!retryable || attempt >= options.maxRetries) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > options.maxRetryDelayMs) return response;
      const delayMs = asked ?? backoff;
      await response.body?.cancel();
      options.onRetry?.({ attempt: attempt + 1, delayMs, status: response.status, url: input.url });
      await sleep(delayMs);
    }
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
