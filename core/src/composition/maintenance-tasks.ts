import type { Logger } from '../infra/logger.ts';
import { Maintenance } from '../modules/maintenance.ts';
import type { CoreModules } from './modules.ts';
import type { StoresArea } from './stores.ts';

/** Every sweep, each owned by its module (which holds its SQL), run in this order every `intervalMs`. */
export function scheduleMaintenance(deps: {
  logger: Logger;
  intervalMs: number;
  auditRetentionDays: number;
  modules: CoreModules;
  stores: StoresArea;
}): Maintenance {
  const { production, payments, webhooks, dashboardLinks, sessions, orders } = deps.modules;
  const { storesModule } = deps.stores;
  const maintenance = new Maintenance({ logger: deps.logger, intervalMs: deps.intervalMs });
  maintenance.add('production hand-off sweep', () => production.sweep());
  maintenance.add('interrupted card charges', () => payments.recoverInterruptedCharges(30_000));
  for (const [name, run] of storesModule.maintenanceTasks()) maintenance.add(name, run);
  maintenance.add('webhooks sweep', () => webhooks.sweep());
  maintenance.add('expired dashboard links', () => dashboardLinks.purgeExpired());
  maintenance.add('expired credential requests', () => storesModule.credentialRequests.purgeExpired());
  maintenance.add('ended browser sessions', () => sessions.sweep());
  maintenance.add('expired idempotency keys', () => orders.upkeep.purgeExpiredIdempotencyKeys());
  maintenance.add('audit retention', () => deps.modules.audit.applyRetention(deps.auditRetentionDays));
  // Last: the one task that may wait on a third party (the ECB's file, once a day).
  maintenance.add('ECB reference rates', () => deps.modules.exchangeRates.refreshDaily());
  return maintenance;
}
