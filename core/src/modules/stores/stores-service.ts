import type { ProductsBySku } from './catalogue/listing-products.ts';
import { StoreConnections, type StoreRow } from './connect/store-connections.ts';
import { StoreCredentials } from './connect/store-credentials.ts';
import { StoreIngests } from './inbound/store-ingests.ts';
import { StoreLinks } from './catalogue/store-links.ts';
import { StoreListings } from './catalogue/store-listings.ts';
import type { StoresContext } from './stores-context.ts';

export type { StoreRow } from './connect/store-connections.ts';

/**
 * The stores' one entry for callers outside the module (the composition root, admin routes,
 * tests, the reseller products' link guard): it builds the services split by job, and callers
 * use the one they need. Inside the module, the pipeline's classes are handed those services,
 * not this object.
 * - connections (store-connections.ts): connect, disconnect, find, the store's view;
 * - credentials (store-credentials.ts): open, update, renew under a lock, webhook secrets;
 * - links (store-links.ts): links made and discovered, the SKU guard;
 * - listings (store-listings.ts): the synced listings, matched to products;
 * - ingests (store-ingests.ts): what became of each store order.
 */
export class StoresService {
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
    this.listings = new StoreListings({ ...ctx, connections: this.connections, products, links: this.links });
    this.ingests = new StoreIngests({ ...ctx, connections: this.connections });
  }
}
