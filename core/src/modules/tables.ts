import type { Kysely } from 'kysely';
import type { AccountsTables } from './accounts/accounts-tables.ts';
import type { PaymentsTables } from './payments/payments-tables.ts';
import type { WalletTables } from './wallet/wallet-tables.ts';
import type { QueueTables } from '../infra/queue/queue-tables.ts';
import type { EventsTables } from './events/events-tables.ts';
import type { OrdersTables } from './orders/orders-tables.ts';
import type { ResellerProductsTables } from './reseller-products/reseller-products-tables.ts';
import type { StoresTables } from './stores/stores-tables.ts';
import type { DashboardTables } from './dashboard/dashboard-links-tables.ts';
import type { WebhooksTables } from './webhooks/webhooks-tables.ts';
import type { SessionsTables } from './sessions/sessions-tables.ts';
import type { CredentialRequestsTables } from './stores/connect/credential-requests-tables.ts';
import type { SandboxTables } from './sandbox/sandbox-tables.ts';
import type { StorePublicationsTables } from './stores/catalogue/store-publications-tables.ts';
import type { ExchangeRatesTables } from './exchange-rates/exchange-rates-tables.ts';
import type { OperatorTokensTables } from './operators/operator-tokens-tables.ts';
import type { AuditTables } from './audit/audit-tables.ts';

/** Every table of every module: the database type that Kysely checks queries against. */
export interface Tables
  extends AccountsTables,
    WalletTables,
    PaymentsTables,
    QueueTables,
    OrdersTables,
    EventsTables,
    ResellerProductsTables,
    StoresTables,
    WebhooksTables,
    DashboardTables,
    SessionsTables,
    CredentialRequestsTables,
    SandboxTables,
    StorePublicationsTables,
    ExchangeRatesTables,
    OperatorTokensTables,
    AuditTables {}

export type Db = Kysely<Tables>;
