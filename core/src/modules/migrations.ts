import type { Migration } from 'kysely/migration';
import { accountsMigration } from './accounts/accounts-tables.ts';
import { paymentsMigration } from './payments/payments-tables.ts';
import { walletMigration } from './wallet/wallet-tables.ts';
import { queueMigration } from '../infra/queue/queue-tables.ts';
import { eventStreamIndexMigration, eventsMigration } from './events/events-tables.ts';
import { ordersMigration } from './orders/orders-tables.ts';
import {
  resellerProductsMigration,
  resellerProductsModeMigration,
} from './reseller-products/reseller-products-tables.ts';
import {
  storeIngestSkippedProductsMigration,
  storeListingsJobMigration,
  storeListingsMigration,
  storePollNoticeMigration,
  storeShipmentsIndexMigration,
  storeSyncAndRedactionMigration,
  storesMigration,
  storeWebhookBodiesBinaryMigration,
  storeWindowIndexesMigration,
} from './stores/stores-tables.ts';
import {
  webhookAttemptsWindowIndexMigration,
  webhookSecretRotationMigration,
  webhooksMigration,
} from './webhooks/webhooks-tables.ts';
import { dashboardLinksMigration } from './dashboard/dashboard-links-tables.ts';
import { statementAbortMigration } from '../infra/db/statement-abort.ts';
import { browserSessionsMigration, unboundResellerSessionsMigration } from './sessions/sessions-tables.ts';
import { credentialRequestReturnsMigration } from './stores/connect/credential-requests-tables.ts';
import { sandboxMigration } from './sandbox/sandbox-tables.ts';
import { storeCountryMigration } from './stores/catalogue/store-locales.ts';
import { storePublicationsMigration } from './stores/catalogue/store-publications-tables.ts';
import { exchangeRatesMigration } from './exchange-rates/exchange-rates-tables.ts';
import { operatorTokensMigration } from './operators/operator-tokens-tables.ts';
import { auditMigration } from './audit/audit-tables.ts';

/** Several modules' migrations as one, run in the order given (undone in the reverse order). */
function together(...parts: Migration[]): Migration {
  return {
    async up(db) {
      for (const part of parts) await part.up(db);
    },
    async down(db) {
      for (const part of [...parts].reverse()) await part.down?.(db);
    },
  };
}

/** Every module's migrations, in the order they were written. Never rename or reorder. */
export const migrations: Record<string, Migration> = {
  '0001_accounts': accountsMigration,
  '0002_wallet': walletMigration,
  '0003_payments': paymentsMigration,
  '0004_queue_jobs': queueMigration,
  '0005_orders': ordersMigration,
  '0006_events': eventsMigration,
  '0007_webhooks': webhooksMigration,
  '0008_reseller_products': resellerProductsMigration,
  '0009_stores': storesMigration,
  '0010_store_shipments_index': storeShipmentsIndexMigration,
  '0011_statement_abort': statementAbortMigration,
  '0012_webhook_secret_rotation': webhookSecretRotationMigration,
  '0013_reseller_products_mode': resellerProductsModeMigration,
  '0014_store_sync_and_redaction': storeSyncAndRedactionMigration,
  '0015_store_listings': storeListingsMigration,
  '0016_events_stream_index': eventStreamIndexMigration,
  '0017_browser_sessions': browserSessionsMigration,
  '0018_dashboard_links': dashboardLinksMigration,
  '0019_store_poll_notice': storePollNoticeMigration,
  '0020_credential_request_returns': credentialRequestReturnsMigration,
  '0021_unbound_reseller_sessions': unboundResellerSessionsMigration,
  '0022_sandbox_platform': sandboxMigration,
  '0023_store_publications': storePublicationsMigration,
  '0024_store_ingest_skipped_products': storeIngestSkippedProductsMigration,
  '0025_store_country': storeCountryMigration,
  '0026_store_webhook_bodies_binary': storeWebhookBodiesBinaryMigration,
  '0027_exchange_rates': exchangeRatesMigration,
  '0028_operator_tokens': operatorTokensMigration,
  '0029_audit_log': auditMigration,
  // The console's 24-hour windows (issue 37): store orders, store webhooks and delivery attempts by time.
  '0030_window_indexes': together(storeWindowIndexesMigration, webhookAttemptsWindowIndexMigration),
  '0031_store_listings_job': storeListingsJobMigration,
};
