import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import {
  categorySchema,
  countriesSchema,
  productSchema,
  type Category,
  type Countries,
  type Lang,
  type Product,
} from './catalog-schema.ts';

/** `core/data/catalog`, found from this module's own location so the working directory does not matter. */
export const DEFAULT_CATALOG_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../data/catalog');

/** A broken catalogue. The message names the file and the path of the bad field; the service does not start. */
export class CatalogError extends Error {
  override name = 'CatalogError';
}

const fieldError = (file: string, field: string, message: string) =>
  new CatalogError(`Catalogue file ${file} is invalid:\n  ${field}: ${message}`);

function readJson<T>(file: string, schema: z.ZodType<T>): T {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CatalogError(`Catalogue file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues
      .slice(0, 10)
      .map((i) => `  ${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
    const more = parsed.error.issues.length > 10 ? `\n  (${parsed.error.issues.length - 10} more)` : '';
    throw new CatalogError(`Catalogue file ${file} is invalid:\n${lines.join('\n')}${more}`);
  }
  return parsed.data;
}

/** Lowercase without accents, so "depliants" finds "Dépliants". */
const fold = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();

/** The catalogue as data (`core/data/catalog`), validated when it is loaded. Immutable. */
export class Catalog {
  /** Every product, sorted by id (the order of list pages and cursors). */
  readonly products: readonly Product[];
  readonly categories: readonly Category[];
  /** VAT rate and shipping zone per destination country, and the zones' weight brackets. */
  readonly countries: Countries;
  readonly #byRef = new Map<string, Product>();

  constructor(products: Product[], categories: Category[], countries: Countries) {
    this.products = [...products].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.categories = categories;
    this.countries = countries;
    for (const p of this.products) {
      for (const ref of [p.id, ...Object.values(p.slugs)]) {
        const other = this.#byRef.get(ref);
        if (other && other !== p) throw new CatalogError(`Catalogue: '${ref}' names both ${other.id} and ${p.id}`);
        this.#byRef.set(ref, p);
      }
    }
  }

  /** By id, or by slug in any language; slugs match case-insensitively. */
  find(idOrSlug: string): Product | undefined {
    return this.#byRef.get(idOrSlug) ?? this.#byRef.get(idOrSlug.toLowerCase());
  }

  /**
   * Products in a category and/or matching a term, sorted by id. The term matches the names in
   * `lang` and the slugs in every language (a link from any storefront finds its product),
   * ignoring case and accents.
   */
  search(opts: { q?: string | undefined; category?: string | undefined; lang: Lang }): Product[] {
    const q = opts.q === undefined ? '' : fold(opts.q.trim());
    return this.products.filter(
      (p) =>
        (!opts.category || p.category === opts.category) &&
        (q === '' ||
          fold(p.names[opts.lang]).includes(q) ||
          p.id.includes(q) ||
          Object.values(p.slugs).some((s) => s.includes(q))),
    );
  }
}

/**
 * Loads and validates the catalogue directory: `products/*.json` (one product per file, named by
 * its id), `categories.json` and `countries.json`. Throws a CatalogError naming the file and
 * the field at the first broken file.
 */
export function loadCatalog(dir: string = DEFAULT_CATALOG_DIR): Catalog {
  const productDir = path.join(dir, 'products');
  let files: string[];
  try {
    files = readdirSync(productDir)
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch {
    throw new CatalogError(`Catalogue directory ${productDir} cannot be read`);
  }
  if (files.length === 0) throw new CatalogError(`Catalogue directory ${productDir} has no products`);
  const categoriesFile = path.join(dir, 'categories.json');
  const categories = readJson(categoriesFile, categorySchema);
  const countries = readJson(path.join(dir, 'countries.json'), countriesSchema);

  // Cross-file rules, checked here so the message can name the file that breaks them.
  const owners = new Map<string, string>();
  const products = files.map((f) => {
    const file = path.join(productDir, f);
    const product = readJson(file, productSchema);
    if (`${product.id}.json` !== f) throw fieldError(file, 'id', `'${product.id}' does not match the file name ${f}`);
    if (!categories.some((c) => c.slug === product.category)) {
      throw fieldError(file, 'category', `unknown category '${product.category}' (not in ${categoriesFile})`);
    }
    const refs: Array<[string, string]> = [
      ['id', product.id],
      ...Object.entries(product.slugs).map(([lang, s]): [string, string] => [`slugs.${lang}`, s]),
    ];
    for (const [field, ref] of refs) {
      const owner = owners.get(ref);
      if (owner && owner !== product.id)
        throw fieldError(
          file,
          field,
          `'${ref}' already names product ${owner}: ids and slugs are unique across the catalogue`,
        );
      owners.set(ref, product.id);
    }
    return product;
  });
  return new Catalog(products, categories, countries);
}
