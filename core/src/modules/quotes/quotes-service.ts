import { rejected, type ErrorDetail } from '../../kernel/refusal.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { resolveConfiguration } from './configuration.ts';
import { priceQuote, supportedCountries, type Quote, type ResolvedLine } from './pricing.ts';
import type { KnownSkus, SkuOwner, SkuResolver } from './sku-resolver.ts';

export interface LineInput {
  productId?: string | undefined;
  resellerSku?: string | undefined;
  quantity: number;
  options?: Record<string, string | number> | undefined;
  fileUrl?: string | undefined;
}

export interface PricedLine extends ResolvedLine {
  resellerSku: string | null;
  /** The line's file: its own, else the reseller product's default artwork. */
  fileUrl: string | null;
}

/**
 * Resolves lines (catalogue products or the reseller's SKUs), checks every option and quantity
 * rule, and prices them. Quotes and orders both go through here, so an order costs exactly
 * what its quote said.
 */
export class QuotesService {
  readonly #catalog: Catalog;
  readonly #skus: SkuResolver;

  constructor(deps: { catalog: Catalog; skus: SkuResolver }) {
    this.#catalog = deps.catalog;
    this.#skus = deps.skus;
  }

  get catalog(): Catalog {
    return this.#catalog;
  }

  /** Prices `lines` for `country`, or throws one 422 listing every problem. */
  async price(
    owner: SkuOwner,
    input: { lines: LineInput[]; country: string; discountBps: number; knownSkus?: KnownSkus | undefined },
  ): Promise<{ quote: Quote; lines: PricedLine[] }> {
    const problems: ErrorDetail[] = [];
    const countries = supportedCountries(this.#catalog);
    if (!countries.includes(input.country)) {
      problems.push({
        field: 'country',
        code: 'unsupported_country',
        message: `We do not ship to ${input.country}.`,
        allowedValues: countries,
      });
    }
    // Every SKU of the request in one query (those the caller looked up already are not asked again).
    const wanted = input.lines.flatMap((l) =>
      l.resellerSku !== undefined && !input.knownSkus?.has(l.resellerSku.toLowerCase()) ? [l.resellerSku] : [],
    );
    const skus = new Map(input.knownSkus ?? []);
    if (wanted.length > 0)
      for (const [key, product] of await this.#skus.findBySkus(owner, wanted)) skus.set(key, product);
    const resolved: PricedLine[] = [];
    for (const [index, line] of input.lines.entries()) {
      const found = this.#resolveProduct(skus, owner.mode, line, index, problems);
      if (!found) continue;
      // A reseller product's options are fixed: they win over anything the line sends.
      const options = { ...(line.options ?? {}), ...found.fixedOptions };
      const result = resolveConfiguration(found.product, { quantity: line.quantity, options }, index);
      if (!result.ok) {
        problems.push(...result.problems);
        continue;
      }
      resolved.push({
        line: index,
        product: found.product,
        quantity: line.quantity,
        options: result.options,
        derivedOptions: result.derivedOptions,
        resellerSku: found.sku,
        fileUrl: line.fileUrl ?? found.defaultFileUrl,
      });
    }
    if (problems.length > 0) throw unprocessableLines(problems);
    const quote = priceQuote(
      { lines: resolved, country: input.country, discountBps: input.discountBps },
      this.#catalog,
    );
    return { quote, lines: resolved };
  }

  #resolveProduct(skus: KnownSkus, mode: SkuOwner['mode'], line: LineInput, index: number, problems: ErrorDetail[]) {
    if (line.resellerSku !== undefined) {
      const own = skus.get(line.resellerSku.toLowerCase());
      if (!own) {
        problems.push({
          line: index,
          field: 'resellerSku',
          code: 'unknown_sku',
          message: `You have no ${mode} product with SKU '${line.resellerSku}' (test and live products are separate).`,
        });
        return undefined;
      }
      if (!own.active) {
        problems.push({
          line: index,
          field: 'resellerSku',
          code: 'inactive_reseller_product',
          message: `Your product '${own.sku}' is inactive.`,
        });
        return undefined;
      }
      const product = this.#catalog.find(own.productId);
      if (!product) {
        problems.push({
          line: index,
          field: 'resellerSku',
          code: 'unknown_product',
          message: `The product behind SKU '${own.sku}' is no longer in the catalogue.`,
        });
        return undefined;
      }
      return { product, sku: own.sku, fixedOptions: own.options, defaultFileUrl: own.fileUrl };
    }
    const product = this.#catalog.find(line.productId!);
    if (!product) {
      problems.push({
        line: index,
        field: 'productId',
        code: 'unknown_product',
        message: `There is no product '${line.productId}'.`,
      });
      return undefined;
    }
    return { product, sku: null, fixedOptions: {}, defaultFileUrl: null };
  }
}

/** One 422 for all problems; its code is the first problem's (spec §7 names invalid_options and invalid_file_url). */
export function unprocessableLines(problems: ErrorDetail[]) {
  const first = problems[0]!;
  const more =
    problems.length > 1
      ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''}; see details)`
      : '';
  const where = first.line !== undefined ? `Line ${first.line}: ` : '';
  return rejected(first.code, `${where}${first.message ?? first.code}${more}`, problems);
}
