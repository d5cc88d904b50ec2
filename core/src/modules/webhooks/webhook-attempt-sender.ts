import { SafeFetchError, type SafeFetch } from '../../infra/safe-fetch/safe-fetch.ts';

// Sending one attempt: one POST through the SSRF guard, and what came of it in a line a
// reseller can read on the delivery's page.

export interface Outcome {
  startedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  succeeded: boolean;
}

/** POSTs a signed delivery once: no redirect followed, the answer's body read only to describe a failure. */
export async function sendAttempt(
  deps: { safeFetch: SafeFetch; timeoutMs: number },
  request: { url: string; headers: Record<string, string>; body: string; startedAt: Date },
): Promise<Outcome> {
  const { url, headers, body, startedAt } = request;
  const t0 = performance.now();
  const latency = (): number => Math.round(performance.now() - t0);
  try {
    const res = await deps.safeFetch.request(url, {
      method: 'POST',
      headers,
      body,
      timeoutMs: deps.timeoutMs,
      maxRedirects: 0,
      maxBodyBytes: 512,
    });
    const succeeded = res.status >= 200 && res.status < 300;
    return {
      startedAt,
      statusCode: res.status,
      latencyMs: latency(),
      succeeded,
      error: succeeded ? null : describeStatus(res.status, res.headers.location, res.body),
    };
  } catch (err) {
    const error =
      err instanceof SafeFetchError
        ? err.code === 'timeout'
          ? `timeout: no answer within ${deps.timeoutMs} ms`
          : `${err.code}: ${err.message}`
        : `error: ${(err as Error).message}`;
    return { startedAt, statusCode: null, latencyMs: latency(), succeeded: false, error };
  }
}

/** A non-2xx answer in a line: the status, where a redirect pointed (not followed), the start of the body. */
function describeStatus(status: number, location: string | string[] | undefined, body: Buffer): string {
  if (status >= 300 && status < 400)
    return `HTTP ${status}: redirects are not followed${typeof location === 'string' ? ` (Location: ${location.slice(0, 200)})` : ''}`;
  const text = body
    .toString('utf8')
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim()
    .slice(0, 200);
  return `HTTP ${status}${text ? `: ${text}` : ''}`;
}
