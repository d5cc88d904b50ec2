import { listen as listenToStream, type ForwardAttempt } from '../../../packages/sdk/src/listen.ts';
import { newWebhookSecret } from '../../../packages/sdk/src/webhook-signer.ts';
import { CLI_USER_AGENT, CliError, unreachable, type Target } from './admin-client.ts';
import { listenRefusal } from './cli-words.ts';

export interface ListenOptions {
  target: Target;
  /**
   * `/admin/v1/resellers/{id}/events/stream?mode=` with the back-office token, or `/api/reseller/v1/events/stream` with
   * an API key.
   */
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
 *
 * The stream, the forwarding and the signing are the SDK's `listen` (core runs the SDK's
 * source: the package's entry is its build, made only when it is packed); this adapter adds the
 * back-office stream, the terminal's lines and the CLI's errors.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const { target, source, out } = options;
  const secret = options.secret ?? newWebhookSecret();
  const stream =
    'apiKey' in source
      ? { url: `${target.origin}/api/reseller/v1/events/stream`, bearer: source.apiKey }
      : {
          url: `${target.origin}/admin/v1/resellers/${encodeURIComponent(source.resellerId)}/events/stream?mode=${source.mode}`,
          bearer: target.adminToken(),
        };
  const mode = 'apiKey' in source ? (source.apiKey.startsWith('prk_live_') ? 'live' : 'test') : source.mode;
  let announced = false;

  const session = listenToStream({
    url: stream.url,
    // The SDK sends it as the bearer: the back-office token reads the admin stream the same way.
    apiKey: stream.bearer,
    userAgent: CLI_USER_AGENT,
    fetch: globalThis.fetch,
    secret,
    types: options.types,
    after: options.after,
    forwardTo: options.forwardTo,
    signal: options.signal,
    onReady: () => {
      if (announced) return;
      announced = true;
      out(`Ready! Listening for ${mode} events${options.forwardTo ? `, forwarding to ${options.forwardTo}` : ''}.`);
      out(`Your webhook signing secret is ${secret} (verify with it as with an endpoint's secret; ^C to quit)`);
    },
    onMessage: (message) => out(`${new Date().toISOString()}  --> ${message.event} [${message.id ?? '?'}]`),
    onForwardAttempt: (attempt) => out(forwardLine(attempt)),
    onDisconnect: (err, { url, during }) => {
      // Never connected: the service is not there (a wrong --url), not a stream to wait for.
      if (during === 'connect' && !announced) throw unreachable(url, target, err);
      out(`stream lost (${(err as Error).message}); reconnecting…`);
    },
    refusal: async (res) =>
      new CliError(listenRefusal(res.status, (await res.text()).slice(0, 2000), 'apiKey' in source)),
  });
  await session.done;
}

/** One local delivery attempt, as the terminal shows it. */
function forwardLine({ url, eventId, attempt, attempts, status, error }: ForwardAttempt): string {
  const outcome =
    status !== undefined
      ? `[${status}]`
      : `[failed: ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}]`;
  const line = `${new Date().toISOString()}  <-- ${outcome} POST ${url} [${eventId}]`;
  if (status !== undefined && status >= 200 && status < 300) return line;
  return `${line}${attempt < attempts ? `, retrying (attempt ${attempt + 1} of ${attempts})` : ', giving up'}`;
}
