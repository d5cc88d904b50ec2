import { randomBytes } from 'node:crypto';
import { newWebhookSecret, signedHeaders } from '../modules/webhooks/webhook-signer.ts';
import { CLI_USER_AGENT, CliError, unreachable, type Target } from './admin-client.ts';
import { readServerSentEvents } from './server-sent-events.ts';

/** The User-Agent of real deliveries, marked as coming from `listen`. */
const LISTEN_USER_AGENT = 'print-api-webhooks/1.0 (listen)';
const ATTEMPTS = 3;
const TIMEOUT_MS = 10_000;

export interface ListenOptions {
  target: Target;
  /** `/admin/v1/resellers/{id}/events/stream?mode=` with the back-office token, or `/api/reseller/v1/events/stream` with an API key. */
  source: { resellerId: string; mode: 'live' | 'test' } | { apiKey: string };
  forwardTo?: string | undefined;
  /** The listen session's signing secret; a new one when not given. */
  secret?: string | undefined;
  types?: string[] | undefined;
  after?: string | undefined;
  out: (line: string) => void;
  /** Ends the session (SIGINT). */
  signal: AbortSignal;
}

/**
 * `npm run admin -- listen`: reads the reseller's event stream and POSTs each event to a local
 * URL, signed exactly as a webhook delivery is (same body, headers and `v1=` HMAC; the
 * session's own secret). This process makes the local request, so the service needs no route
 * to the developer's machine. A dropped stream is resumed with Last-Event-ID.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const { target, source, out, signal } = options;
  const secret = options.secret ?? newWebhookSecret();
  const query = new URLSearchParams();
  let url: string;
  let authorization: string;
  if ('apiKey' in source) {
    url = `${target.origin}/api/reseller/v1/events/stream`;
    authorization = `Bearer ${source.apiKey}`;
  } else {
    url = `${target.origin}/admin/v1/resellers/${encodeURIComponent(source.resellerId)}/events/stream`;
    authorization = `Bearer ${target.adminToken()}`;
    query.set('mode', source.mode);
  }
  if (options.types?.length) query.set('types', options.types.join(','));
  const streamUrl = query.size > 0 ? `${url}?${query}` : url;

  let lastEventId = options.after;
  let announced = false;
  let failures = 0;
  while (!signal.aborted) {
    let res: Response;
    try {
      res = await fetch(streamUrl, {
        headers: { authorization, accept: 'text/event-stream', 'user-agent': CLI_USER_AGENT, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal,
      });
    } catch (err) {
      if (signal.aborted) return;
      if (!announced) throw unreachable(streamUrl, target, err);
      failures++;
      out(`stream lost (${(err as Error).message}); reconnecting…`);
      await pause(Math.min(10_000, 500 * 2 ** failures), signal);
      continue;
    }
    if (!res.ok || !res.body) {
      const text = await res.text();
      throw new CliError(`${streamUrl} answered ${res.status}: ${text.slice(0, 300)}`);
    }
    try {
      for await (const message of readServerSentEvents(res.body)) {
        if (message.event === 'ready') {
          failures = 0;
          if (!announced) {
            announced = true;
            const mode = 'apiKey' in source ? (source.apiKey.startsWith('prk_live_') ? 'live' : 'test') : source.mode;
            out(`Ready! Listening for ${mode} events${options.forwardTo ? `, forwarding to ${options.forwardTo}` : ''}.`);
            out(`Your webhook signing secret is ${secret} (verify with it as with an endpoint's secret; ^C to quit)`);
          }
          continue;
        }
        if (message.id) lastEventId = message.id;
        const at = new Date().toISOString();
        out(`${at}  --> ${message.event} [${message.id ?? '?'}]`);
        if (options.forwardTo) await forward(options.forwardTo, secret, message.event, message.id ?? '', message.data, out, signal);
      }
    } catch (err) {
      if (signal.aborted) return;
      out(`stream lost (${(err as Error).message}); reconnecting…`);
    }
    if (signal.aborted) return;
    await pause(500, signal);
  }
}

/** One event to the local URL: up to ATTEMPTS tries, each signed afresh, a 2xx within 10 s counts. */
async function forward(url: string, secret: string, type: string, eventId: string, body: string, out: (line: string) => void, signal: AbortSignal): Promise<void> {
  const deliveryId = `dlv_listen_${randomBytes(10).toString('hex')}`;
  for (let attempt = 1; attempt <= ATTEMPTS && !signal.aborted; attempt++) {
    const headers = signedHeaders(secret, { eventId, eventType: type, deliveryId, attempt, body }, LISTEN_USER_AGENT);
    let outcome: string;
    try {
      const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]) });
      await res.arrayBuffer().catch(() => undefined);
      outcome = `[${res.status}]`;
      if (res.status >= 200 && res.status < 300) {
        out(`${new Date().toISOString()}  <-- ${outcome} POST ${url} [${eventId}]`);
        return;
      }
    } catch (err) {
      if (signal.aborted) return;
      outcome = `[failed: ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}]`;
    }
    out(`${new Date().toISOString()}  <-- ${outcome} POST ${url} [${eventId}]${attempt < ATTEMPTS ? `, retrying (attempt ${attempt + 1} of ${ATTEMPTS})` : ', giving up'}`);
    if (attempt < ATTEMPTS) await pause(1000 * 2 ** (attempt - 1), signal);
  }
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
