import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import type { Config } from '../config.ts';
import type { Logger } from '../infra/logger.ts';

/**
 * How long the server keeps an idle keep-alive connection: longer than clients and proxies do (AWS's load balancers: 60
 * s).
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

type Step = () => unknown;
/** A stop step, named for the log when it overruns. */
type StopStep = [name: string, run: Step];

export interface Lifecycle {
  /** Starts job processing (ROLE=all|worker). */
  startWorkers(): Promise<void>;
  /** Listens on config HOST:PORT (ROLE=all|api). */
  listen(): Promise<Server>;
  /** Graceful stop: no new connections, finish in-flight requests and jobs, close pools. */
  close(): Promise<void>;
}

/**
 * Start and stop, in order. `start`: what processes jobs, run one after the other. `stop`: `first`
 * before the server stops taking connections (what holds a response open for long), then the
 * server (in-flight requests finish; after SHUTDOWN_TIMEOUT_MS their sockets are destroyed), then
 * `after`, one after the other: each step may still use what the later ones close. A stop step
 * that has not finished after SHUTDOWN_TIMEOUT_MS is logged by name and left behind, so that a
 * stop always ends (the steps after it close what it holds).
 */
export function serviceLifecycle(deps: {
  config: Pick<Config, 'PORT' | 'HOST' | 'SHUTDOWN_TIMEOUT_MS'>;
  app: Express;
  logger: Logger;
  /** Told the address `listen` got (`http://localhost:<port>`). */
  onListening: (origin: string) => void;
  start: Step[];
  stop: { first: StopStep[]; after: StopStep[] };
}): Lifecycle {
  const { config, app, logger } = deps;
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  const inOrder = async (steps: Step[]) => {
    for (const step of steps) await step();
  };
  const stopInOrder = async (steps: StopStep[]) => {
    for (const [name, step] of steps) {
      let timer: NodeJS.Timeout | undefined;
      const overran = new Promise<true>(
        (resolve) => (timer = setTimeout(() => resolve(true), config.SHUTDOWN_TIMEOUT_MS)),
      );
      const done = Promise.resolve()
        .then(step)
        .then(
          () => false as const,
          (err: Error) => {
            logger.warn('shutdown step failed; going on', { step: name, error: err.message });
            return false as const;
          },
        );
      if (await Promise.race([done, overran]))
        logger.warn('shutdown step did not finish in time; going on without it', {
          step: name,
          timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
        });
      clearTimeout(timer);
    }
  };
  return {
    startWorkers: () => inOrder(deps.start),
    listen: () =>
      new Promise<Server>((resolve, reject) => {
        const s = app.listen(config.PORT, config.HOST, (err?: Error) => {
          if (err) return reject(err);
          const address = s.address();
          if (address && typeof address === 'object')
            deps.onListening(
              `http://${/^(0\.0\.0\.0|::)$/.test(config.HOST) ? 'localhost' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${address.port}`,
            );
          resolve(s);
        });
        // An idle keep-alive connection is closed by the client, not under its feet: Node's 5 s
        // default lets a busy client (or a proxy with a 60 s idle timeout) send on a socket the
        // server is closing, and that request fails with a reset nobody caused.
        s.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
        s.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
        s.on('connection', (socket) => {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
        });
        server = s;
      }),
    close: async () => {
      await stopInOrder(deps.stop.first);
      if (server) {
        const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => sockets.forEach((s) => s.destroy()), config.SHUTDOWN_TIMEOUT_MS);
        await closing;
        clearTimeout(timer);
      }
      await stopInOrder(deps.stop.after);
    },
  };
}
