import { randomBytes } from 'node:crypto';
import { errorFromResponse, type PrintApiError } from './errors.ts';
import { readServerSentEvents, type ServerSentEvent } from './server-sent-events.ts';
import { newWebhookSecret, signWebhook } from './webhook-signer.ts';
import type { WebhookEvent } from './webhook-verifier.ts';

export interface ListenOptions {
  /** Where to POST each event, signed like a webhook delivery (e.g. `http://localhost:4000/hooks`). */
  forwardTo?: string;
  /** Called with each event (after forwarding, when `forwardTo` is set). */
  onEvent?: (event: WebhookEvent, info: { forwarded: ForwardResult | undefined }) => void | Promise<void>;
  /** The session's signing secret (default: a new `whsec_…`, in `session.secret`). */
  secret?: string;
  /** Only these event types (default: all). */
  types?: string[];
  /** First replay the events after this event id. */
  after?: string;
  /** Tries per local delivery (default 3), each signed afresh. */
  attempts?: number;
  /** Ends the session. */
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

export interface ForwardResult {
  status: number | undefined;
  attempts: number;
  ok: boolean;
}

export interface ListenSession {
  /** Verify forwarded requests with this secret (`verifyWebhook(body, headers, session.secret)`). */
  readonly secret: string;
  /** Resolves once the stream is live: events after this moment are delivered. */
  readonly ready: Promise<void>;
  /** Resolves when the session ends (`close()`, the signal), rejects on a refused stream (bad key, missing scope). */
  readonly done: Promise<void>;
  close(): void;
}

/**
 * @internal What a caller with a terminal of its own (the service's CLI) watches or decides
 * beyond `ListenOptions`; the client leaves them all out.
 */
export interface ListenHooks {
  /** Each `ready` message: the stream is live (again). */
  onReady?: () => void;
  /** Each message as it arrives, before it is forwarded. */
  onMessage?: (message: ServerSentEvent) => void;
  /** Each local delivery attempt's outcome (`status`, or the `error` it failed with). */
  onForwardAttempt?: (attempt: ForwardAttempt) => void;
  /** The stream could not be opened or broke; throw to end the session instead of reconnecting. */
  onDisconnect?: (err: unknown, info: { url: string; during: 'connect' | 'stream' }) => void;
  /**
   * The error that ends the session on an answer that is not 2xx, or undefined to retry. Default: 4xx other than 429
   * end it.
   */
  refusal?: (res: Response, url: string) => Promise<Error | undefined>;
}

export interface ForwardAttempt {
  url: string;
  eventId: string;
  attempt: number;
  attempts: number;
  status?: number;
  error?: unknown;
}

/** @internal The client's part: where and as whom to stream (`url` may carry a query of its own). */
export function listen(
  options: ListenOptions & ListenHooks & { url: string; apiKey: string; userAgent: string; fetch: typeof fetch },
): ListenSession {
  const secret = options.secret ?? newWebhookSecret();
  const abort = new AbortController();
  if (options.signal) options.signal.addEventListener('abort', () => abort.abort(), { once: true });
  const signal = abort.signal;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const streamUrl = new URL(options.url);
  if (options.types?.length) streamUrl.searchParams.set('types', options.types.join(','));
  const url = streamUrl.toString();
  const refusal = options.refusal ?? defaultRefusal;

  const run = async (): Promise<void> => {
    let lastEventId = options.after;
    let failures = 0;
    while (!signal.aborted) {
      let res: Response;
      try {
        res = await options.fetch(url, {
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            accept: 'text/event-stream',
            'user-agent': options.userAgent,
            ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
          },
          signal,
        });
      } catch (err) {
        if (signal.aborted) return;
        options.onDisconnect?.(err, { url, during: 'connect' });
        await pause(Math.min(10_000, 500 * 2 ** ++failures), signal);
        continue;
      }
      if (!res.ok) {
        const refused = await refusal(res, url);
        if (refused) throw refused;
      }
      if (!res.ok || !res.body) {
        await res.body?.cancel();
        await pause(Math.min(10_000, 500 * 2 ** ++failures), signal);
        continue;
      }
      try {
        for await (const message of readServerSentEvents(res.body)) {
          if (message.event === 'ready') {
            failures = 0;
            markReady();
            options.onReady?.();
            continue;
          }
          if (message.id) lastEventId = message.id;
          options.onMessage?.(message);
          const event = JSON.parse(message.data) as WebhookEvent;
          const forwarded = options.forwardTo
            ? await forward({
                url: options.forwardTo,
                secret,
                message,
                attempts: options.attempts ?? 3,
                fetchFn: options.fetch,
                signal,
                onAttempt: options.onForwardAttempt,
              })
            : undefined;
          await options.onEvent?.(event, { forwarded });
        }
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof SyntaxError) throw err;
        options.onDisconnect?.(err, { url, during: 'stream' });
      }
      if (!signal.aborted) await pause(500, signal);
    }
  };
  const done = run();
  // Never an unhandled rejection when the caller only awaits `ready`.
  done.catch(() => undefined);
  return { secret, ready: Promise.race([ready, done.then(() => undefined)]), done, close: () => abort.abort() };
}

async function defaultRefusal(res: Response): Promise<Error | undefined> {
  if (res.status < 400 || res.status >= 500 || res.status === 429) return undefined;
  return errorFromResponse(res, await res.json().catch(() => undefined)) as PrintApiError;
}

/** One event to the local URL: up to `attempts` tries, each signed afresh; a 2xx within 10 s counts. */
async function forward(input: {
  url: string;
  secret: string;
  message: ServerSentEvent;
  attempts: number;
  fetchFn: typeof fetch;
  signal: AbortSignal;
  onAttempt: ((attempt: ForwardAttempt) => void) | undefined;
}): Promise<ForwardResult> {
  const { url, secret, message, attempts, fetchFn, signal } = input;
  const deliveryId = `dlv_listen_${randomBytes(10).toString('hex')}`;
  const eventId = message.id ?? '';
  let status: number | undefined;
  for (let attempt = 1; attempt <= attempts && !signal.aborted; attempt++) {
    try {
      const res = await fetchFn(url, {
        method: 'POST',
        headers: {
          ...signWebhook(message.data, secret, { eventType: message.event, deliveryId, attempt }),
          'user-agent': 'print-api-webhooks/1.0 (listen)',
        },
        body: message.data,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
      input.onAttempt?.({ url, eventId, attempt, attempts, status });
      if (res.status >= 200 && res.status < 300) return { status, attempts: attempt, ok: true };
    } catch (err) {
      status = undefined;
      if (signal.aborted) break;
      input.onAttempt?.({ url, eventId, attempt, attempts, error: err });
    }
    if (attempt < attempts) await pause(1000 * 2 ** (attempt - 1), signal);
  }
  return { status, attempts, ok: false };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
