import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { TestService } from '../../core/test/helpers/test-service.ts';
import { scaled } from '../../core/test/helpers/wait.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CLI = path.join(ROOT, 'core/src/cli.ts');

/** One POST a local receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A plain-HTTP receiver on localhost, as a developer runs one (no TLS, a private address). */
export interface LocalReceiver {
  url: string;
  received: Received[];
  /** Status to answer with (200 unless changed). */
  status: number;
  close(): Promise<void>;
}

export async function startLocalReceiver(): Promise<LocalReceiver> {
  const receiver: LocalReceiver = { url: '', received: [], status: 200, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(receiver.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** The sample print file the service serves for business cards, as GET /products/{id} lists it to a test key. */
export async function sampleFileUrl(t: TestService, testKey: string): Promise<string> {
  const product = await t.api(testKey, 'GET', '/products/business-cards');
  const url = product.body.data.sampleFiles?.[0]?.url as string | undefined;
  if (!url)
    throw new Error(
      `GET /products/business-cards lists no sampleFiles for a test key: ${JSON.stringify(product.body)}`,
    );
  return url;
}

export function sandboxOrderBody(fileUrl: string) {
  return {
    externalOrderId: `shop-${randomUUID().slice(0, 8)}`,
    lines: [{ productId: 'business-cards', quantity: 250, fileUrl }],
    recipient: {
      name: 'Jan de Vries',
      email: 'jan@example.nl',
      address1: 'Keizersgracht 1',
      postalCode: '1015 CJ',
      city: 'Amsterdam',
      country: 'NL',
    },
  };
}

/** A running `npm run admin -- listen …` process and what it printed. */
export interface ListenProcess {
  child: ChildProcess;
  lines: string[];
  /** The session secret it printed at start. */
  secret: string;
  stop(): Promise<void>;
}

/** Starts the CLI's `listen` and waits until it says it is ready (the stream is live). */
export async function startListen(
  args: string[],
  env: Record<string, string>,
  timeoutMs = scaled(60_000),
): Promise<ListenProcess> {
  const child = spawn(process.execPath, [CLI, 'listen', ...args], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const secret = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`listen did not get ready in ${timeoutMs} ms: ${lines.join('\n')}\n${stderr}`)),
      timeoutMs,
    );
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const found = /signing secret is (whsec_\S+)/.exec(line);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`listen exited (${code}) before it was ready: ${lines.join('\n')}\n${stderr}`));
    });
  });
  return {
    child,
    lines,
    secret,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}
