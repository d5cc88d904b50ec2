import type { Connector, StoreConnection } from '@print-api/connector-kit';
import type { ListEnvelope } from '../../http/pagination.ts';
import type { Tenant } from '../orders/orders-service.ts';
import type { LinkedProduct, LinkRegistry } from '../reseller-products/reseller-products-service.ts';
import type { ProductsBySku } from './listing-products.ts';
import { StoreConnections, type StoreRow, type StoreView } from './store-connections.ts';
import { StoreCredentials } from './store-credentials.ts';
import { StoreIngests } from './store-ingests.ts';
import { StoreLinks, type LinkedStore } from './store-links.ts';
import { StoreListings } from './store-listings.ts';
import type { StoresContext } from './stores-context.ts';
import type { StoreIngestsTable } from './stores-tables.ts';

export type { StoreRow, StoreView } from './store-connections.ts';
export type { LinkedStore } from './store-links.ts';
export { linkView } from './store-links.ts';
export { ingestView } from './store-ingests.ts';

/**
 * The stores' one entry for callers outside the module (the composition root, admin routes,
 * tests, the reseller products' link guard): it builds the services split by job and answers
 * by delegating to them. Inside the module, classes and routes use the job services directly.
 * - connections (store-connections.ts): connect, disconnect, find, the store's view;
 * - credentials (store-credentials.ts): open, update, renew under a lock, webhook secrets;
 * - links (store-links.ts): links made and discovered, the SKU guard;
 * - listings (store-listings.ts): the synced listings, matched to products;
 * - ingests (store-ingests.ts): what became of each store order.
 */
export class StoresService implements LinkRegistry {
  readonly connections: StoreConnections;
  readonly credentials: StoreCredentials;
  readonly links: StoreLinks;
  readonly listings: StoreListings;
  readonly ingests: StoreIngests;

  /** `products`: the reseller products, by SKU; `onConnected`: a store was connected or reconnected. */
  constructor(deps: StoresContext & { products: ProductsBySku; onConnected: (store: StoreRow) => Promise<void> }) {
    const { products, onConnected, ...ctx } = deps;
    this.credentials = new StoreCredentials(ctx);
    this.connections = new StoreConnections({ ...ctx, credentials: this.credentials, onConnected });
    this.links = new StoreLinks({ ...ctx, connections: this.connections });
    this.listings = new StoreListings({ ...ctx, connections: this.connections, products });
    this.ingests = new StoreIngests({ ...ctx, connections: this.connections });
  }

  // Connections
  connector(platform: string): Connector<any> {
    return this.connections.connector(platform);
  }
  connect(tenant: Tenant, platform: string, input: Record<string, unknown>): Promise<StoreView> {
    return this.connections.connect(tenant, platform, input);
  }
  saveConnection(tenant: Tenant, platform: string, connection: StoreConnection<unknown>): Promise<StoreRow> {
    return this.connections.saveConnection(tenant, platform, connection);
  }
  list(tenant: Tenant, query: { limit?: number | undefined; cursor?: string | undefined }): Promise<ListEnvelope<StoreView>> {
    return this.connections.list(tenant, query);
  }
  get(tenant: Tenant, id: string): Promise<StoreView> {
    return this.connections.get(tenant, id);
  }
  row(tenant: Tenant, id: string): Promise<StoreRow> {
    return this.connections.row(tenant, id);
  }
  disconnect(tenant: Tenant, id: string): Promise<StoreView> {
    return this.connections.disconnect(tenant, id);
  }
  markDisconnected(id: string, reason?: string): Promise<StoreRow> {
    return this.connections.markDisconnected(id, reason);
  }
  noteProblem(id: string, message: string): Promise<void> {
    return this.connections.noteProblem(id, message);
  }
  findConnected(platform: string, externalId: string): Promise<StoreRow | undefined> {
    return this.connections.findConnected(platform, externalId);
  }
  findById(id: string): Promise<StoreRow | undefined> {
    return this.connections.findById(id);
  }
  connectedStores(platform?: string): Promise<StoreRow[]> {
    return this.connections.connectedStores(platform);
  }

  // Credentials
  connection(row: StoreRow): StoreConnection<unknown> {
    return this.credentials.connection(row);
  }
  webhookSecret(row: StoreRow): string | undefined {
    return this.credentials.webhookSecret(row);
  }
  renewCredentials(id: string, renew: (current: StoreConnection<unknown>) => Promise<unknown>): Promise<unknown> {
    return this.credentials.renewCredentials(id, renew);
  }
  updateCredentials(id: string, credentials: unknown): Promise<void> {
    return this.credentials.updateCredentials(id, credentials);
  }
  setWebhookSecret(id: string, secret: string): Promise<void> {
    return this.credentials.setWebhookSecret(id, secret);
  }

  // Links (LinkRegistry: the reseller products' guard)
  discoverLink(store: StoreRow, resellerProductId: string, sku: string, externalProductId: string | null, externalVariantId: string | null): Promise<void> {
    return this.links.discoverLink(store, resellerProductId, sku, externalProductId, externalVariantId);
  }
  forgetKnownLinks(): void {
    this.links.forgetKnownLinks();
  }
  listLinks(...args: Parameters<StoreLinks['listLinks']>): ReturnType<StoreLinks['listLinks']> {
    return this.links.listLinks(...args);
  }
  addLink(...args: Parameters<StoreLinks['addLink']>): ReturnType<StoreLinks['addLink']> {
    return this.links.addLink(...args);
  }
  removeLink(tenant: Tenant, storeId: string, linkId: string): Promise<{ id: string; deleted: true }> {
    return this.links.removeLink(tenant, storeId, linkId);
  }
  countLinks(resellerProductIds: string[]): Promise<Map<string, number>> {
    return this.links.countLinks(resellerProductIds);
  }
  connectedStoresLinkedTo(product: LinkedProduct): Promise<LinkedStore[]> {
    return this.links.connectedStoresLinkedTo(product);
  }
  removeLinksOf(resellerProductId: string): Promise<void> {
    return this.links.removeLinksOf(resellerProductId);
  }

  // Listings and ingests
  listListings(...args: Parameters<StoreListings['listListings']>): ReturnType<StoreListings['listListings']> {
    return this.listings.listListings(...args);
  }
  listIngests(tenant: Tenant, storeId: string, query: { status?: StoreIngestsTable['status'] | 'skipped' | undefined; limit?: number | undefined; cursor?: string | undefined }): ReturnType<StoreIngests['listIngests']> {
    return this.ingests.listIngests(tenant, storeId, query);
  }
}
