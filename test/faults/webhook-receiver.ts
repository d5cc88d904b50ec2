import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { sendBytes, startHttpsServer, type TestHttpsServer } from '../../core/test/helpers/https-server.ts';
import { tinyPdf } from '../../core/test/print-files/print-file-fixtures.ts';

/** The path of the print file every order of the load links to. */
export const PRINT_FILE_PATH = '/files/card.pdf';

/**
 * The resellers' outside world on one local HTTPS server: the print file their orders link to,
 * and their webhook receivers (`/hooks/<name>`). A receiver checks each request's signature
 * with its endpoint's secret and remembers which event ids arrived, signed correctly.
 */
export class WebhookReceiver {
  readonly server: TestHttpsServer;
  readonly #secrets = new Map<string, string>();
  /** hook path -> event id -> correctly signed receipts. */
  readonly #seen = new Map<string, Map<string, number>>();
  readonly #badSignatures: string[] = [];
  /** Answers of deliveries held back (see `holdDeliveries`), sent on release. */
  #held: Array<() => void> | undefined;

  private constructor(server: TestHttpsServer) {
    this.server = server;
  }

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = await startHttpsServer((req, res, body) =>
      receiver!.#receive(req.url ?? '/', req.headers, body, res),
    );
    receiver = new WebhookReceiver(server);
    server.route(PRINT_FILE_PATH, sendBytes(tinyPdf(), 'application/pdf'));
    // Requests are counted here, not kept: the server's own list would only grow.
    setInterval(() => void (server.requests.length = 0), 1000).unref();
    return receiver;
  }

  get printFileUrl(): string {
    return `${this.server.url}${PRINT_FILE_PATH}`;
  }

  /** A new receiver path; `secret` is set once the endpoint exists (see `useSecret`). */
  hookUrl(name: string): string {
    this.#seen.set(`/hooks/${name}`, new Map());
    return `${this.server.url}/hooks/${name}`;
  }

  useSecret(name: string, secret: string): void {
    this.#secrets.set(`/hooks/${name}`, secret);
  }

  /** Whether `eventId` reached `/hooks/<name>` with a valid signature. */
  saw(name: string, eventId: string): boolean {
    return (this.#seen.get(`/hooks/${name}`)?.get(eventId) ?? 0) > 0;
  }

  /** Requests refused for a missing or wrong signature (each `path event-id`). */
  badSignatures(): string[] {
    return [...this.#badSignatures];
  }

  /**
   * From now on, deliveries are received (and counted as seen) but not answered until the
   * returned release is called: a process killed meanwhile dies in the middle of its attempts.
   */
  holdDeliveries(): () => void {
    this.#held = [];
    return () => {
      const held = this.#held ?? [];
      this.#held = undefined;
      for (const answer of held) answer();
    };
  }

  /** Deliveries held back right now. */
  held(): number {
    return this.#held?.length ?? 0;
  }

  close(): Promise<void> {
    this.#held = undefined;
    return this.server.close();
  }

  #receive(url: string, headers: IncomingHttpHeaders, body: Buffer, res: import('node:http').ServerResponse): void {
    const path = url.split('?')[0]!;
    const seen = this.#seen.get(path);
    if (!seen) return void res.writeHead(404).end();
    let eventId = '';
    try {
      eventId = String((JSON.parse(body.toString('utf8')) as { id?: unknown }).id ?? '');
    } catch {
      // not JSON: refused below
    }
    const secret = this.#secrets.get(path);
    if (!eventId || !secret || !signatureIsValid(secret, headers, body)) {
      this.#badSignatures.push(`${path} ${eventId || '(no event id)'}`);
      return void res.writeHead(400).end();
    }
    seen.set(eventId, (seen.get(eventId) ?? 0) + 1);
    const answer = () => void (res.destroyed || res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    if (this.#held) this.#held.push(answer);
    else answer();
  }
}

/** Spec §6: `v1=` HMAC-SHA256 of `<timestamp>.<raw body>`; any of several `v1=` may match. */
function signatureIsValid(secret: string, headers: IncomingHttpHeaders, rawBody: Buffer): boolean {
  const timestamp = String(headers['x-service-timestamp'] ?? '');
  if (!/^\d+$/.test(timestamp)) return false;
  const expected = Buffer.from(
    createHmac('sha256', secret)
      .update(Buffer.concat([Buffer.from(`${timestamp}.`), rawBody]))
      .digest('hex'),
  );
  return String(headers['x-service-signature'] ?? '')
    .split(',')
    .some((part) => {
      const given = Buffer.from(part.trim().replace(/^v1=/, ''));
      return part.trim().startsWith('v1=') && given.length === expected.length && timingSafeEqual(given, expected);
    });
}
