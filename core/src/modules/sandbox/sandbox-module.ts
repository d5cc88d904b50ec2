import type { HttpClient } from '@print-api/connector-kit';
import type { CursorCodec } from '../../kernel/pagination.ts';
import type { AnyRoute } from '../../web/route.ts';
import type { SecretBox } from '../../infra/crypto.ts';
import type { Logger } from '../../infra/logger.ts';
import type { Tenant } from '../../kernel/tenant.ts';
import type { StoreRow } from '../stores/stores-service.ts';
import type { Db } from '../tables.ts';
import { SandboxPlatformApi } from './sandbox-platform-api.ts';
import { SandboxPlatform, type WebhookInbox } from './sandbox-platform.ts';
import { sandboxRoutes } from './sandbox-routes.ts';
import { SandboxStores } from './sandbox-stores.ts';

/**
 * The sandbox platform a sandbox store lives on (connectors/sandbox is its connector), so that
 * the connector half can be tried offline with a test key. The design, in short:
 * - the platform's state (shops, store orders, products, fulfilments pushed back) is this
 *   module's tables (sandbox-tables.ts), so every API and worker process sees one platform;
 * - the connector reaches it through `ctx.http` like any platform: `http(inner)` answers the
 *   platform's origin (`https://sandbox.print-api.invalid`, which never resolves) in-process
 *   (sandbox-platform-api.ts) and hands every other URL to core's guarded client;
 * - the platform tells the service about changes with webhooks signed with the store's secret
 *   (the one the connector registered), handed in-process to the stores module's receiver
 *   (`inbox`), the one behind `POST /connectors/<slug>/webhooks/<storeId>`: the connector
 *   verifies them, the receiver stores them, and ingestion, idempotency and the tracking push
 *   run exactly as for a real platform. The service never calls its own public URL.
 */
export class SandboxModule {
  readonly platform: SandboxPlatform;
  readonly stores: SandboxStores;
  readonly #api: SandboxPlatformApi;

  constructor(deps: {
    db: Db;
    box: SecretBox;
    logger: Logger;
    cursors: CursorCodec;
    inbox: WebhookInbox;
    storeRow: (tenant: Tenant, id: string) => Promise<StoreRow>;
  }) {
    this.platform = new SandboxPlatform({ db: deps.db, box: deps.box, logger: deps.logger, inbox: deps.inbox });
    this.stores = new SandboxStores({ platform: this.platform, cursors: deps.cursors, storeRow: deps.storeRow });
    this.#api = new SandboxPlatformApi(this.platform);
  }

  /** A connector's HTTP client with the sandbox platform answered in-process. */
  http(inner: HttpClient): HttpClient {
    return this.#api.over(inner);
  }

  /** The reseller API's `/stores/{id}/sandbox-*` routes. */
  routes(): AnyRoute[] {
    return sandboxRoutes(this.stores);
  }
}
