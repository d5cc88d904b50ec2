import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerWith, type FakeReply } from '@print-api/connector-kit/testing';
import { startHttpsServer, type TestHandler, type TestHttpsServer } from '../../core/test/helpers/https-server.ts';

/** What a platform does instead of answering, for a while: errors, throttling, silence, dropped connections. */
export type PlatformFault = '500' | '429' | 'hang' | 'reset';

/** Seconds a throttled caller is told to wait (Retry-After). */
export const RETRY_AFTER_S = 2;

/**
 * A simulated platform (a fake's `answer`) on a real local HTTPS server of the test process,
 * behind a switch the scenario flips: while a fault is on, every request gets it instead of
 * the fake's answer (a 500, a 429 with Retry-After, no answer until the fault ends, or a TCP
 * reset). It can also hold the answers of the fake's shipment pushes after the fake applied
 * them, so that a process killed meanwhile never learns that its push arrived.
 */
export class FaultyPlatform {
  readonly server: TestHttpsServer;
  /** Requests answered with each fault instead of the fake's answer. */
  readonly injected: Record<PlatformFault, number> = { '500': 0, '429': 0, hang: 0, reset: 0 };
  #fault: PlatformFault | undefined;
  readonly #hung = new Set<ServerResponse>();
  #held: Array<() => void> | undefined;
  #heldCount = 0;

  private constructor(server: TestHttpsServer) {
    this.server = server;
  }

  /** `isPush`: which of the fake's requests push a shipment (the ones `holdPushAnswers` holds). */
  static async start(
    answer: (req: Request) => Promise<FakeReply>,
    isPush: (method: string, path: string) => boolean,
  ): Promise<FaultyPlatform> {
    let platform: FaultyPlatform | undefined;
    const fake = answerWith(async (req) => {
      const reply = await answer(req);
      const held = platform!.#held;
      if (held && isPush(req.method, new URL(req.url).pathname)) {
        platform!.#heldCount++;
        await new Promise<void>((resolve) => held.push(resolve));
      }
      return reply;
    });
    const server = await startHttpsServer((req, res, body) => platform!.#handle(req, res, body, fake));
    platform = new FaultyPlatform(server);
    // Requests are counted by the fakes, not kept here: the server's own list would only grow.
    setInterval(() => void (server.requests.length = 0), 1000).unref();
    return platform;
  }

  get url(): string {
    return this.server.url;
  }

  /** Every request gets `fault` until `clear`. */
  inject(fault: PlatformFault): void {
    this.#fault = fault;
  }

  /** Answers again; requests left hanging are dropped (their callers see a reset, as after a long hang). */
  clear(): void {
    this.#fault = undefined;
    for (const res of this.#hung) res.socket?.destroy();
    this.#hung.clear();
  }

  /** From now on, shipment pushes are applied by the fake but their answers wait for the returned release. */
  holdPushAnswers(): () => void {
    this.#held = [];
    return () => {
      const held = this.#held ?? [];
      this.#held = undefined;
      for (const release of held) release();
    };
  }

  /** Push answers held back right now. */
  heldPushes(): number {
    return this.#held?.length ?? 0;
  }

  close(): Promise<void> {
    this.#held?.forEach((release) => release());
    this.#held = undefined;
    this.clear();
    return this.server.close();
  }

  #handle(req: IncomingMessage, res: ServerResponse, body: Buffer, fake: TestHandler): void | Promise<void> {
    const fault = this.#fault;
    if (!fault) return fake(req, res, body);
    this.injected[fault]++;
    switch (fault) {
      case '500':
        return void res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ code: 50000, message: 'Internal error (injected)' }));
      case '429':
        return void res
          .writeHead(429, { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_S) })
          .end(JSON.stringify({ code: 42900, message: 'Too many requests (injected)' }));
      case 'hang':
        this.#hung.add(res);
        res.on('close', () => this.#hung.delete(res));
        return;
      case 'reset':
        try {
          req.socket.resetAndDestroy();
        } catch {
          // a socket that cannot send a RST is closed all the same
          req.socket.destroy();
        }
        return;
    }
  }
}
