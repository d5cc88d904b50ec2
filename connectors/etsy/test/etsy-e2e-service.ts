import { connectorE2eService, startHttpsServer, type TestHttpsServer, type TestService } from '@print-api/core/testing';
import type { FakeHttpsServer, FakeRequestHandler } from '@print-api/connector-kit/testing';
import { etsyConnector } from '../src/index.ts';
import type { FakeEtsy } from './fake-etsy.ts';

/**
 * The set-up of Etsy's end-to-end suites, registered as the calling suite's hooks: `etsy` on a local HTTPS server the
 * service trusts, its settings in the service's environment (filled before the service starts: the hooks run in
 * order), and the service (connectorE2eService) told where the fake is. `ready` receives the service and the print-file
 * host once they run.
 */
export function etsyE2eService(
  etsy: FakeEtsy,
  publicUrl: string,
  ready: (started: { t: TestService; files: TestHttpsServer }) => void,
): void {
  let server: TestHttpsServer | undefined;
  const env: Record<string, string> = {};
  before(async () => {
    let handler: FakeRequestHandler | undefined;
    server = await startHttpsServer((req, res, body) =>
      handler ? handler(req, res, body) : void res.writeHead(404).end(),
    );
    Object.assign(env, etsy.serve({ ...server, fallback: (h) => void (handler = h) } as FakeHttpsServer));
  });
  connectorE2eService(
    publicUrl,
    { connectors: [etsyConnector] },
    (started) => {
      etsy.attach({ baseUrl: started.t.baseUrl, publicUrl });
      ready(started);
    },
    env,
  );
  after(async () => server?.close());
}
