import { randomBytes } from 'node:crypto';
import { errorFromResponse, type PrintApiError } from './errors.ts';
import { readServerSentEvents } from './server-sent-events.ts';
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

/** @internal The client's part: where and as whom to stream. */
export function listen(options: ListenOptions & { url: string; apiKey: string; userAgent: string; fetch: typeof fetch }): ListenSession {
  const secret = options.secret ?? newWebhookSecret();
  const abort = new AbortController();
  if (options.signal) options.signal.addEventListener('abort', () => abort.abort(), { once: true });
  const signal = abort.signal;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const query = new URLSearchParams();
  if (options.types?.length) query.set('types', options.types.join(','));
  const url = query.size > 0 ? `${options.url}?${query}` : options.url;

  const run = async (): Promise<void> => {
    let lastEventId = options.after;
    let failures = 0;
    while (!signal.aborted) {
      let res: Response;
      try {
        res = await options.fetch(url, {
          headers: { authorization: `Bearer ${options.apiKey}`, accept: 'text/event-stream', 'user-agent': options.userAgent, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
          signal,
        });
      } catch {
        if (signal.aborted) return;
        await pause(Math.min(10_000, 500 * 2 ** ++failures), signal);
        continue;
      }
      if (res.status >= 400 && res.status < 500 && res.status !== 429) throw errorFromResponse(res, await res.json().catch(() => undefined)) as PrintApiError;
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
            continue;
          }
          if (message.id) lastEventId = message.id;
          const event = JSON.parse(message.data) as WebhookEvent;
          const forwarded = options.forwardTo ? await forward(options.forwardTo, secret, message.event, message.data, options.attempts ?? 3, options.fetch, signal) : undefined;
          await options.onEvent?.(event, { forwarded });
        }
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof SyntaxError) throw err;
      }
      if (!signal.aborted) await pause(500, signal);
    }
  };
  const done = run();
  // Never an unhandled rejection when the caller only awaits `ready`.
  done.catch(() => undefined);
  return { secret, ready: Promise.race([ready, done.then(() => undefined)]), done, close: () => abort.abort() };
}

async function forward(url: string, secret: string, type: string, body: string, attempts: number, fetchFn: typeof fetch, signal: AbortSignal): Promise<ForwardResult> {
  const deliveryId = `dlv_listen_${randomBytes(10).toString('hex')}`;
  let status: number | undefined;
  for (let attempt = 1; attempt <= attempts && !signal.aborted; attempt++) {
    try {
      const res = await fetchFn(url, {
        method: 'POST',
        headers: { ...signWebhook(body, secret, { eventType: type, deliveryId, attempt }), 'user-agent': 'print-api-webhooks/1.0 (listen)' },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
      if (res.status >= 200 && res.status < 300) return { status, attempts: attempt, ok: true };
    } catch {
      status = undefined;
    }
    if (attempt < attempts) await pause(1000 * 2 ** (attempt - 1), signal);
  }
  return { status, attempts, ok: false };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
