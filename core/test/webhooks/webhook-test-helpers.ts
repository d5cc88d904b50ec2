import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Writable } from 'node:stream';
import winston from 'winston';
import type { Mode } from '../../src/kernel/tenant.ts';
import type { Overrides } from '../../src/composition.ts';
import { startHttpsServer, type TestHttpsServer } from '../helpers/https-server.ts';
import type { TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

/** Short timings so retries happen in milliseconds; the contract's own values are tested separately. */
export const FAST_WEBHOOKS: Overrides = {
  // Retries come fast; a send's timeout and lease stay long enough (grown by the run's time scale)
  // that a loaded machine's slow local send is never mistaken for a timeout or for a dead claimer
  // (no second attempt). A test of the timeout itself sends to a receiver that never answers.
  webhooks: { timeoutMs: scaled(3000), retryScheduleMs: [300, 300, 300], jitterRatio: 0, leaseMs: scaled(10_000) },
  maintenanceIntervalMs: 300,
};

/**
 * Checks `X-Service-Signature` exactly as spec §6 words it, independently of the service's
 * signer and of the SDK: hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the secret.
 */
export function signatureIsValid(secret: string, headers: IncomingHttpHeaders, rawBody: Buffer): boolean {
  const timestamp = String(headers['x-service-timestamp'] ?? '');
  const signature = String(headers['x-service-signature'] ?? '');
  if (!/^\d+$/.test(timestamp) || !signature.startsWith('v1=')) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), rawBody]))
    .digest('hex');
  const given = signature.slice(3);
  return (
    given.length === expected.length &&
    /^[0-9a-f]+$/.test(given) &&
    timingSafeEqual(Buffer.from(given), Buffer.from(expected))
  );
}

/**
 * What a receiver does with its n-th request (1-based): a status, a status after a while, a redirect, or
 * never answering (`'hang'`: only the sender's timeout, its death or the receiver's close ends the request).
 */
export type Behaviour = (n: number) => number | { delayMs: number; status: number } | { location: string } | 'hang';

/** A real HTTPS receiver with several hook paths, each with its own behaviour. */
export class Receiver {
  readonly server: TestHttpsServer;
  readonly #counts = new Map<string, number>();

  private constructor(server: TestHttpsServer) {
    this.server = server;
  }

  static async start(): Promise<Receiver> {
    return new Receiver(await startHttpsServer());
  }

  /** Registers `path` (answers 200 unless told otherwise) and returns its URL. */
  hook(path: string, behaviour: Behaviour = () => 200): string {
    this.server.route(path, (_req, res) => {
      const n = (this.#counts.get(path) ?? 0) + 1;
      this.#counts.set(path, n);
      const what = behaviour(n);
      if (typeof what === 'number')
        return void res.writeHead(what, { 'content-type': 'text/plain' }).end(what < 300 ? 'ok' : 'nope');
      if (what === 'hang') return;
      if ('location' in what) return void res.writeHead(302, { location: what.location }).end();
      const timer = setTimeout(() => res.writeHead(what.status).end('late'), what.delayMs);
      res.on('close', () => clearTimeout(timer));
    });
    return `${this.server.url}${path}`;
  }

  /** Requests that reached `path`, with their parsed bodies. */
  requests(path: string): Array<{ headers: IncomingHttpHeaders; raw: Buffer; event: any }> {
    return this.server.requests
      .filter((r) => r.path === path)
      .map((r) => ({ headers: r.headers, raw: r.body, event: JSON.parse(r.body.toString('utf8')) }));
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

export { waitFor } from '../helpers/wait.ts';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Writes events through the real outbox in one transaction, exactly as orders do, then tells
 * the listeners (unless `notify: false`, which is a crash between the commit and the queue).
 */
export async function writeEvents(
  t: TestService,
  input: {
    resellerId: string;
    mode?: Mode;
    type?: string;
    count?: number;
    data?: (i: number) => Record<string, unknown>;
    notify?: boolean;
  },
): Promise<string[]> {
  const { outbox } = t.service.services;
  const ids = await t.service.db.transaction().execute(async (trx) => {
    const written: string[] = [];
    for (let i = 0; i < (input.count ?? 1); i++) {
      const envelope = await outbox.write(trx, {
        resellerId: input.resellerId,
        mode: input.mode ?? 'live',
        type: input.type ?? 'order.created',
        data: input.data?.(i) ?? { order: { id: `ord_fake_${i}`, state: 'SUBMITTED', status: 'PAID' } },
      });
      written.push(envelope.id);
    }
    return written;
  });
  if (input.notify !== false) outbox.notify();
  return ids;
}

/** Creates an endpoint through the API and returns it with its secret. */
export async function createEndpoint(
  t: TestService,
  key: string,
  url: string,
  events: string[] = ['*'],
): Promise<{ id: string; secret: string }> {
  const res = await t.api(key, 'POST', '/webhooks', { url, events });
  if (res.status !== 201) throw new Error(`POST /webhooks answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { id: res.body.data.id, secret: res.body.data.secret };
}

/** The endpoint's delivery log through the API. */
export async function deliveries(t: TestService, key: string, endpointId: string): Promise<any[]> {
  const res = await t.api(key, 'GET', `/webhooks/${endpointId}/deliveries?limit=100`);
  if (res.status !== 200) throw new Error(`GET deliveries answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** A logger that keeps warnings as parsed JSON lines (to see the "endpoint disabled" line). */
export function capturingLogger(): { logger: winston.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  const logger = winston.createLogger({
    level: 'warn',
    format: winston.format.json(),
    transports: [new winston.transports.Stream({ stream })],
  });
  return { logger, lines };
}
