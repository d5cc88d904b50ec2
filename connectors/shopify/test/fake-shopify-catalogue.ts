/** A product of the fake shop's catalogue (a product without options has one variant titled "Default Title"). */
export interface FakeProduct {
  id: number;
  title: string;
  status: 'ACTIVE' | 'DRAFT' | 'ARCHIVED';
  variants: Array<{ id: number; sku: string | null; title: string; price?: string; tracked?: boolean }>;
  descriptionHtml?: string;
  /** The image URLs Shopify was given to fetch (`files[].originalSource`). */
  images?: string[];
  /** The publications (sales channels) the product is published to. */
  publications?: string[];
}

/** A shop's sales channels, the Online Store among them (its catalog titled as the channel). */
export const PUBLICATIONS = [
  {
    id: 'gid://shopify/Publication/19374112835',
    name: 'Online Store',
    catalog: { __typename: 'AppCatalog', title: 'Online Store' },
  },
  {
    id: 'gid://shopify/Publication/19374145603',
    name: 'Point of Sale',
    catalog: { __typename: 'AppCatalog', title: 'Point of Sale' },
  },
];

/** The scope each catalogue operation needs (`write_x` implies `read_x`), as shopify.dev lists them. */
export const CATALOGUE_SCOPES: Record<string, { field: string; scope: string }> = {
  PublishingContext: { field: 'publications', scope: 'read_publications' },
  CreateListing: { field: 'productSet', scope: 'write_products' },
  UpdateListing: { field: 'productUpdate', scope: 'write_products' },
  UpdateListingPrice: { field: 'productVariantsBulkUpdate', scope: 'write_products' },
  PublishListing: { field: 'publishablePublish', scope: 'write_publications' },
};

const gidNumber = (gid: string) => Number(String(gid).split('/').pop());
const blank = (v: unknown) => typeof v !== 'string' || v.trim() === '';

function productNode(p: FakeProduct) {
  return {
    id: `gid://shopify/Product/${p.id}`,
    legacyResourceId: String(p.id),
    status: p.status,
    handle: p.title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, ''),
    variants: {
      nodes: p.variants.map((v) => ({
        id: `gid://shopify/ProductVariant/${v.id}`,
        legacyResourceId: String(v.id),
        sku: v.sku,
        price: v.price ?? '0.00',
      })),
    },
  };
}

/**
 * The product mutations of the Admin API on the fake's catalogue, with the refusals Shopify
 * answers as `userErrors` (a blank title, a variant without a price, an unknown product or
 * variant). Answers null for an operation that is not a catalogue one.
 */
export function catalogueOperation(
  shop: { products: Map<number, FakeProduct>; currency: string; country: string | null; nextId: () => number },
  operation: string,
  v: Record<string, any>,
): unknown {
  switch (operation) {
    case 'ShopLocale':
      return { shop: { currencyCode: shop.currency, shopAddress: { countryCodeV2: shop.country } } };
    case 'PublishingContext':
      return {
        shop: { currencyCode: shop.currency, shopAddress: { countryCodeV2: shop.country } },
        publications: { nodes: PUBLICATIONS },
      };
    case 'CreateListing': {
      const input = v.input;
      if (blank(input.title))
        return {
          productSet: {
            product: null,
            userErrors: [{ field: ['input', 'title'], message: "Title can't be blank", code: 'INVALID_INPUT' }],
          },
        };
      const variants = input.variants ?? [];
      if (variants.length === 0)
        return {
          productSet: {
            product: null,
            userErrors: [
              { field: ['input', 'variants'], message: 'Variants input is missing', code: 'VARIANTS_INPUT_MISSING' },
            ],
          },
        };
      const unpriced = variants.findIndex(
        (variant: { price?: unknown }) => typeof variant.price !== 'string' || !/^\d+(\.\d+)?$/.test(variant.price),
      );
      if (unpriced >= 0)
        return {
          productSet: {
            product: null,
            userErrors: [
              {
                field: ['input', 'variants', String(unpriced), 'price'],
                message: 'Price must be a decimal amount',
                code: 'INVALID_VARIANT',
              },
            ],
          },
        };
      if (!input.productOptions?.length)
        return {
          productSet: {
            product: null,
            userErrors: [
              {
                field: ['input', 'productOptions'],
                message: 'Product options input is missing',
                code: 'PRODUCT_OPTIONS_INPUT_MISSING',
              },
            ],
          },
        };
      const product: FakeProduct = {
        id: shop.nextId(),
        title: input.title,
        status: input.status ?? 'ACTIVE',
        descriptionHtml: input.descriptionHtml,
        images: (input.files ?? []).map((f: { originalSource: string }) => f.originalSource),
        publications: [],
        variants: variants.map((variant: Record<string, any>) => ({
          id: shop.nextId(),
          sku: variant.sku ?? null,
          title: variant.optionValues.map((o: { name: string }) => o.name).join(' / '),
          price: variant.price ?? '0.00',
          tracked: variant.inventoryItem?.tracked ?? true,
        })),
      };
      shop.products.set(product.id, product);
      return { productSet: { product: productNode(product), userErrors: [] } };
    }
    case 'PublishListing': {
      const product = shop.products.get(gidNumber(v.id));
      if (!product)
        return { publishablePublish: { userErrors: [{ field: ['id'], message: 'Resource does not exist' }] } };
      for (const { publicationId } of v.input as Array<{ publicationId: string }>) {
        if (!PUBLICATIONS.some((p) => p.id === publicationId))
          return {
            publishablePublish: {
              userErrors: [{ field: ['input', '0', 'publicationId'], message: 'Publication does not exist' }],
            },
          };
        if (!product.publications!.includes(publicationId)) product.publications!.push(publicationId);
      }
      return { publishablePublish: { userErrors: [] } };
    }
    case 'UpdateListing': {
      const product = shop.products.get(gidNumber(v.product.id));
      if (!product)
        return { productUpdate: { product: null, userErrors: [{ field: ['id'], message: 'Product does not exist' }] } };
      if (v.product.title !== undefined && blank(v.product.title))
        return {
          productUpdate: { product: null, userErrors: [{ field: ['title'], message: "Title can't be blank" }] },
        };
      if (v.product.title !== undefined) product.title = v.product.title;
      if (v.product.status !== undefined) product.status = v.product.status;
      return { productUpdate: { product: productNode(product), userErrors: [] } };
    }
    case 'UpdateListingPrice': {
      const product = shop.products.get(gidNumber(v.productId));
      if (!product)
        return {
          productVariantsBulkUpdate: {
            product: null,
            userErrors: [{ field: ['productId'], message: 'Product does not exist' }],
          },
        };
      for (const change of v.variants as Array<{ id: string; price?: string }>) {
        const variant = product.variants.find((x) => x.id === gidNumber(change.id));
        if (!variant)
          return {
            productVariantsBulkUpdate: {
              product: null,
              userErrors: [{ field: ['variants', '0', 'id'], message: 'Product variant does not exist' }],
            },
          };
        if (change.price !== undefined) variant.price = change.price;
      }
      return { productVariantsBulkUpdate: { product: productNode(product), userErrors: [] } };
    }
    default:
      return null;
  }
}
