import type { Selectable } from 'kysely';
import { wrongState, notFound, rejected } from '../../kernel/refusal.ts';
import {
  listEnvelope,
  resolvePage,
  type CursorCodec,
  type ListEnvelope,
  newestFirst,
} from '../../kernel/pagination.ts';
import { newId } from '../../infra/ids.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { FileChecker } from '../orders/orders-service.ts';
import { unprocessableLines } from '../quotes/quotes-service.ts';
import type { ResellerSkuProduct, SkuOwner, SkuResolver } from '../quotes/sku-resolver.ts';
import type { Db } from '../tables.ts';
import { validateFixedOptions } from './fixed-options.ts';
import type { ResellerProductsTable } from './reseller-products-tables.ts';

type Row = Selectable<ResellerProductsTable>;

export interface ResellerProduct {
  id: string;
  sku: string;
  title: string;
  productId: string;
  options: Record<string, string | number>;
  fileUrl: string | null;
  active: boolean;
  links: number;
  createdAt: string;
  updatedAt: string;
}

export interface ResellerProductInput {
  sku: string;
  title: string;
  productId: string;
  options?: Record<string, string | number> | undefined;
  fileUrl?: string | null | undefined;
  active?: boolean | undefined;
}

/** A product as the link registry needs it: whose, which mode, its SKU's key (lower case). */
export interface LinkedProduct {
  id: string;
  resellerId: string;
  mode: SkuOwner['mode'];
  skuKey: string;
}

/** Counts store links and guards deletion (the stores module implements it). */
export interface LinkRegistry {
  countLinks(resellerProductIds: string[]): Promise<Map<string, number>>;
  /**
   * Connected stores still linked to the product or listing its SKU, with those listings
   * (deletion and a change of SKU are refused while any remain).
   */
  connectedStoresLinkedTo(product: LinkedProduct): Promise<
    Array<{
      id: string;
      platform: string;
      name: string;
      listings: Array<{ externalProductId: string; externalVariantId: string | null; title: string }>;
    }>
  >;
  /** Forgets the product's links to disconnected stores, before the product is deleted. */
  removeLinksOf(resellerProductId: string): Promise<void>;
}

const NO_LINKS: LinkRegistry = {
  countLinks: async () => new Map(),
  connectedStoresLinkedTo: async () => [],
  removeLinksOf: async () => undefined,
};

/**
 * The reseller's own SKUs with fixed options: the bridge from store listings to print products.
 * Test and live products are separate, as orders and stores are: a key (and a store connected
 * with it) sees, prices with and changes only the products of its own mode.
 */
export class ResellerProductsService implements SkuResolver {
  readonly #db: Db;
  readonly #catalog: Catalog;
  readonly #files: FileChecker;
  readonly #cursors: CursorCodec;
  #links: LinkRegistry = NO_LINKS;

  constructor(deps: { db: Db; catalog: Catalog; files: FileChecker; cursors: CursorCodec }) {
    this.#db = deps.db;
    this.#catalog = deps.catalog;
    this.#files = deps.files;
    this.#cursors = deps.cursors;
  }

  useLinkRegistry(links: LinkRegistry): void {
    this.#links = links;
  }

  /** The connected stores selling the owner's product `id` (see LinkRegistry); none when it is not the owner's. */
  async storesSelling(owner: SkuOwner, id: string) {
    const row = await this.#db
      .selectFrom('reseller_products')
      .selectAll()
      .where('id', '=', id)
      .where('reseller_id', '=', owner.resellerId)
      .where('mode', '=', owner.mode)
      .executeTakeFirst();
    return row ? this.#links.connectedStoresLinkedTo(linkedProduct(row)) : [];
  }

  async findBySkus(owner: SkuOwner, skus: string[]): Promise<Map<string, ResellerSkuProduct>> {
    const keys = [...new Set(skus.map((s) => s.toLowerCase()))];
    if (keys.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('reseller_products')
      .selectAll()
      .where('reseller_id', '=', owner.resellerId)
      .where('mode', '=', owner.mode)
      .where('sku_key', 'in', keys)
      .execute();
    return new Map(
      rows.map((row) => [
        row.sku_key,
        {
          id: row.id,
          sku: row.sku,
          productId: row.product_id,
          options: row.options,
          fileUrl: row.file_url,
          active: row.active,
        },
      ]),
    );
  }

  async create(owner: SkuOwner, input: ResellerProductInput): Promise<ResellerProduct> {
    const checked = await this.#check(
      input.productId,
      input.options ?? {},
      input.fileUrl ?? null,
      owner.mode === 'test',
    );
    const now = new Date();
    const row = await this.#db
      .insertInto('reseller_products')
      .values({
        id: newId('rp', now.getTime()),
        reseller_id: owner.resellerId,
        mode: owner.mode,
        sku: input.sku,
        sku_key: input.sku.toLowerCase(),
        title: input.title,
        product_id: checked.productId,
        options: JSON.stringify(checked.options),
        file_url: input.fileUrl ?? null,
        active: input.active ?? true,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['reseller_id', 'mode', 'sku_key']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw skuTaken(input.sku);
    return this.#view(row, 0);
  }

  async get(owner: SkuOwner, idOrSku: string): Promise<ResellerProduct> {
    const row = await this.#find(owner, idOrSku);
    const counts = await this.#links.countLinks([row.id]);
    return this.#view(row, counts.get(row.id) ?? 0);
  }

  async update(owner: SkuOwner, idOrSku: string, patch: Partial<ResellerProductInput>): Promise<ResellerProduct> {
    const current = await this.#find(owner, idOrSku);
    const productChanges = patch.productId !== undefined && patch.productId !== current.product_id;
    // A new product starts from its own defaults; otherwise the patch refines the stored options.
    const options = productChanges ? (patch.options ?? {}) : { ...current.options, ...(patch.options ?? {}) };
    const fileUrl = patch.fileUrl !== undefined ? patch.fileUrl : current.file_url;
    const checked = await this.#check(
      patch.productId ?? current.product_id,
      options,
      patch.fileUrl !== undefined ? fileUrl : null,
      owner.mode === 'test',
    );
    // A store sells it under this SKU: under another, its orders would no longer find it.
    if (patch.sku !== undefined && patch.sku.toLowerCase() !== current.sku_key)
      await this.#refuseWhileListed(current, 'change the SKU in the store (and sync it) or unlink it first');
    try {
      const row = await this.#db
        .updateTable('reseller_products')
        .set({
          ...(patch.sku !== undefined ? { sku: patch.sku, sku_key: patch.sku.toLowerCase() } : {}),
          ...(patch.title !== undefined ? { title: patch.title } : {}),
          ...(patch.active !== undefined ? { active: patch.active } : {}),
          product_id: checked.productId,
          options: JSON.stringify(checked.options),
          file_url: fileUrl,
          updated_at: new Date(),
        })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const counts = await this.#links.countLinks([row.id]);
      return this.#view(row, counts.get(row.id) ?? 0);
    } catch (err) {
      if (isUniqueViolation(err)) throw skuTaken(patch.sku ?? current.sku);
      throw err;
    }
  }

  async delete(owner: SkuOwner, idOrSku: string): Promise<{ id: string; deleted: true }> {
    const row = await this.#find(owner, idOrSku);
    await this.#refuseWhileListed(row, 'unlink it or disconnect the store first');
    await this.#links.removeLinksOf(row.id);
    await this.#db.deleteFrom('reseller_products').where('id', '=', row.id).execute();
    return { id: row.id, deleted: true };
  }

  /**
   * 409 reseller_product_linked while a connected store sells the product (a link, or a
   * listing with its SKU): orders for it would otherwise be skipped, silently. Names the stores
   * and their listings.
   */
  async #refuseWhileListed(row: Row, remedy: string): Promise<void> {
    const stores = await this.#links.connectedStoresLinkedTo(linkedProduct(row));
    if (stores.length === 0) return;
    const named = stores.map((s) => {
      const listings = s.listings.map((l) => `'${l.title}'`).join(', ');
      return `${s.platform} store ${s.name} (${s.id})${listings ? ` listing ${listings}` : ''}`;
    });
    throw wrongState(
      'reseller_product_linked',
      `SKU '${row.sku}' is still sold by ${named.join('; ')}; ${remedy}.`,
      stores.flatMap((s) => {
        const store = { field: 'id', code: 'linked_store', storeId: s.id, platform: s.platform };
        return s.listings.length === 0
          ? [store]
          : s.listings.map((l) => ({
              ...store,
              externalProductId: l.externalProductId,
              externalVariantId: l.externalVariantId,
              title: l.title,
            }));
      }),
    );
  }

  async list(
    owner: SkuOwner,
    query: {
      q?: string | undefined;
      active?: boolean | undefined;
      limit?: number | undefined;
      cursor?: string | undefined;
    },
  ): Promise<ListEnvelope<ResellerProduct>> {
    const page = resolvePage(this.#cursors, 'reseller_products', query);
    let q = this.#db
      .selectFrom('reseller_products')
      .selectAll()
      .where('reseller_id', '=', owner.resellerId)
      .where('mode', '=', owner.mode);
    if (query.active !== undefined) q = q.where('active', '=', query.active);
    if (query.q) {
      const pattern = `%${query.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) => eb.or([eb('sku_key', 'like', pattern), eb(eb.fn('lower', ['title']), 'like', pattern)]));
    }
    const rows = await newestFirst(q, page);
    const counts = await this.#links.countLinks(rows.map((r) => r.id));
    return listEnvelope(
      this.#cursors,
      'reseller_products',
      page,
      rows,
      (r) => [r.created_at.toISOString(), r.id],
      (r) => this.#view(r, counts.get(r.id) ?? 0),
    );
  }

  async #find(owner: SkuOwner, idOrSku: string): Promise<Row> {
    const row = await this.#db
      .selectFrom('reseller_products')
      .selectAll()
      .where('reseller_id', '=', owner.resellerId)
      .where('mode', '=', owner.mode)
      .where((eb) => eb.or([eb('id', '=', idOrSku), eb('sku_key', '=', idOrSku.toLowerCase())]))
      .executeTakeFirst();
    if (!row) throw notFound('reseller product', idOrSku);
    return row;
  }

  /** The product exists, the options are valid customer options (defaults added), the file is usable. */
  async #check(productRef: string, options: Record<string, string | number>, fileUrl: string | null, sandbox: boolean) {
    const product = this.#catalog.find(productRef);
    if (!product) {
      throw rejected('unknown_product', `There is no product '${productRef}'.`, [
        { field: 'productId', code: 'unknown_product' },
      ]);
    }
    const result = validateFixedOptions(product, options);
    if (!result.ok) throw unprocessableLines(result.problems);
    if (fileUrl) {
      const check = (await this.#files.checkMany([fileUrl], { sandbox })).get(fileUrl)!;
      if (!check.ok)
        throw rejected('invalid_file_url', check.reason, [
          { field: 'fileUrl', code: 'invalid_file_url', message: check.reason },
        ]);
    }
    return { productId: product.id, options: result.options };
  }

  #view(row: Row, links: number): ResellerProduct {
    return {
      id: row.id,
      sku: row.sku,
      title: row.title,
      productId: row.product_id,
      options: row.options,
      fileUrl: row.file_url,
      active: row.active,
      links,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }
}

function skuTaken(sku: string) {
  return wrongState(
    'sku_exists',
    `You already have a product with SKU '${sku}' in this mode (SKUs are unique regardless of case).`,
    [{ field: 'sku', code: 'sku_exists' }],
  );
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}

function linkedProduct(row: Row): LinkedProduct {
  return { id: row.id, resellerId: row.reseller_id, mode: row.mode, skuKey: row.sku_key };
}
