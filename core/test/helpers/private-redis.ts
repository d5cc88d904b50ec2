import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { REQUIRE_SERVICES } from './services.ts';
import { waitFor } from './wait.ts';

/** A free loopback TCP port (asked of the kernel, then released for the caller to take). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A redis-server of the test's own on a free loopback port, without persistence, that the test
 * may kill, pause (SIGSTOP: its connections stay open and nothing answers) and start again on
 * the same port. Never the shared Redis on 6379.
 */
export class PrivateRedis {
  readonly port: number;
  #child: ChildProcess | undefined;

  private constructor(port: number) {
    this.port = port;
  }

  /** Starts one, or skips the suite when redis-server is not installed (fails it under REQUIRE_SERVICES=1). */
  static async start(ctx: Mocha.Context): Promise<PrivateRedis> {
    if (spawnSync('redis-server', ['--version']).status !== 0) {
      if (REQUIRE_SERVICES) throw new Error('redis-server is not installed and REQUIRE_SERVICES=1');
      ctx.skip();
    }
    const redis = new PrivateRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again, empty) and waits until it answers. */
  async restart(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
      { stdio: 'ignore' },
    );
    this.#child = child;
    await waitFor('the private redis-server', () => this.#answers(), 10_000, 50);
  }

  /** SIGKILL: connections are reset, new ones refused. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGSTOP: connections stay open and nothing answers (the nasty case). */
  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  /** SIGCONT: it answers again, what it was sent meanwhile first. */
  resume(): void {
    this.#child?.kill('SIGCONT');
  }

  async #answers(): Promise<boolean> {
    const client = new Redis(this.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      commandTimeout: 1000,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  }
}
