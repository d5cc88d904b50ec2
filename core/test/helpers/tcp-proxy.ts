import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Like a stopped server: every connection through the proxy is cut and new ones are refused. */
  down(): Promise<void>;
  /** Like a server that hangs: connections are accepted and never answered. */
  blackHole(): void;
  /** Serving again, on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy to `target`: stands between the service and a shared server (PostgreSQL)
 * so a test can take that server "down" for its own connections only.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let mode: 'forward' | 'black-hole' = 'forward';
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (mode === 'black-hole') return;
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const cut = (): void => {
    for (const s of sockets) s.destroy();
  };
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    async down() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      cut();
      await closed;
    },
    blackHole() {
      mode = 'black-hole';
    },
    async up() {
      mode = 'forward';
      if (!server.listening) await listen(port);
    },
    async close() {
      cut();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
