import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { categorySchema, countriesSchema, productSchema, type Category, type Countries, type Lang, type Product } from './catalog-schema.ts';

export const DEFAULT_CATALOG_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../data/catalog');

/** A broken catalogue: the message names the file and the field. The service does not start. */
export class CatalogError extends Error {
  override name = 'CatalogError';
}

function readJson<T>(file: string, schema: z.ZodType<T>): T {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CatalogError(`Catalogue file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.slice(0, 10).map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new CatalogError(`Catalogue file ${file} is invalid:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** The catalogue as data (`core/data/catalog`), validated when it is loaded. */
export class Catalog {
  readonly products: Product[];
  readonly categories: Category[];
  readonly countries: Countries;
  readonly #byRef = new Map<string, Product>();

  constructor(products: Product[], categories: Category[], countries: Countries) {
    this.products = [...products].sort((a, b) => (a.id < b.id ? -1 : 1));
    this.categories = categories;
    this.countries = countries;
    for (const p of this.products) {
      for (const ref of [p.id, ...Object.values(p.slugs)]) {
        const other = this.#byRef.get(ref);
        if (other && other !== p) throw new CatalogError(`Catalogue: '${ref}' names both ${other.id} and ${p.id}`);
        this.#byRef.set(ref, p);
      }
      if (!categories.some((c) => c.slug === p.category)) throw new CatalogError(`Catalogue: product ${p.id} is in the unknown category '${p.category}'`);
    }
  }

  /** By id, or by slug in any language (case-insensitive). */
  find(idOrSlug: string): Product | undefined {
    return this.#byRef.get(idOrSlug) ?? this.#byRef.get(idOrSlug.toLowerCase());
  }

  /** Products matching a search term (names in `lang`, and every slug) and a category, sorted by id. */
  search(opts: { q?: string | undefined; category?: string | undefined; lang: Lang }): Product[] {
    const q = opts.q?.toLowerCase();
    return this.products.filter(
      (p) =>
        (!opts.category || p.category === opts.category) &&
        (!q || p.names[opts.lang].toLowerCase().includes(q) || Object.values(p.slugs).some((s) => s.includes(q)) || p.id.includes(q)),
    );
  }
}

/** Loads and validates every file of the catalogue directory. */
export function loadCatalog(dir: string = DEFAULT_CATALOG_DIR): Catalog {
  const productDir = path.join(dir, 'products');
  let files: string[];
  try {
    files = readdirSync(productDir).filter((f) => f.endsWith('.json'));
  } catch {
    throw new CatalogError(`Catalogue directory ${productDir} cannot be read`);
  }
  const products = files.map((f) => {
    const product = readJson(path.join(productDir, f), productSchema);
    if (`${product.id}.json` !== f) throw new CatalogError(`Catalogue file ${path.join(productDir, f)}: id '${product.id}' does not match the file name`);
    return product;
  });
  return new Catalog(products, readJson(path.join(dir, 'categories.json'), categorySchema), readJson(path.join(dir, 'countries.json'), countriesSchema));
}
