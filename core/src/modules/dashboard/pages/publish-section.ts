import { minorUnitsToDecimal, decimalToMinorUnits } from '@print-api/connector-kit';
import { CsrfField, Field, html, type VNode } from '../../../http/pages/html.ts';
import { Refusal } from '../../refusal.ts';
import { redirect, type DashContext } from '../dashboard-context.ts';
import type { Api, Data, ListPage } from '../dashboard-data.ts';
import type { DashboardViews } from '../dashboard-views.ts';
import { refusal, Select } from './parts.ts';

/** What the publish form shows again: what was typed, the margin it gives, or why it was refused. */
export interface PublishState {
  values: {
    storeId?: string | undefined;
    title?: string | undefined;
    price?: string | undefined;
    country?: string | undefined;
  };
  margin?: Margin | undefined;
  error?: { message: string; fields: Record<string, string> } | undefined;
}

interface Margin {
  retailCents: number;
  ourCents: number;
  shippingCents: number;
  vatCents: number;
  country: string;
  /**
   * Whether `country` is the store's own (as its platform said it), not the one typed for a store whose country is
   * unknown.
   */
  storeCountry: boolean;
}

const DEFAULT_COUNTRY = 'NL';
/** Euros for a person; a negative amount (a retail price below our price: a loss) with its minus sign. */
export const euros = (cents: number) => `${cents < 0 ? '−' : ''}€${minorUnitsToDecimal(Math.abs(cents), 'EUR')}`;

/**
 * `POST /dashboard/products/{id}/publish`: `intent=margin` shows what the retail price leaves
 * once our price for one piece (a quote: shipping and VAT included) is paid, for the store's
 * country (the form's country only where the store's is unknown); `intent=publish` publishes the product to the store
 * (POST /stores/{id}/listings) and
 * shows the margin with it. Answers the state to show again, or null once it has redirected.
 */
export async function submitPublish(
  d: DashContext,
  product: { id: string; sku: string },
): Promise<PublishState | null> {
  const values = {
    storeId: d.form.storeId ?? '',
    title: d.form.title ?? '',
    price: d.form.price ?? '',
    country: (d.form.country ?? DEFAULT_COUNTRY).trim().toUpperCase(),
  };
  const retailCents = decimalToMinorUnits(values.price, 'EUR');
  if (retailCents === null || retailCents <= 0)
    return {
      values,
      error: { message: 'Give the retail price as an amount, like 24.95.', fields: { price: 'an amount, like 24.95' } },
    };
  let margin: Margin | undefined;
  try {
    const storeCountry = await countryOf(d, values.storeId);
    margin = {
      ...(await marginOf(d, product.sku, retailCents, storeCountry ?? values.country)),
      storeCountry: storeCountry !== null,
    };
  } catch (err) {
    const r = refusal(err);
    return { values, error: { message: r.message, fields: { country: r.message } } };
  }
  if (d.form.intent !== 'publish') return { values, margin };
  try {
    // The form's price and margin are in euros: a store selling in another currency is refused (currency_mismatch), not
    // priced wrongly.
    await d.api<Data<Api['PublishedListing']>>('POST', `/stores/${encodeURIComponent(values.storeId)}/listings`, {
      body: { resellerProduct: product.id, title: values.title, priceCents: retailCents, currency: 'EUR' },
    });
    redirect(d.res, `/dashboard/products/${product.id}?done=listing-published`);
    return null;
  } catch (err) {
    const r = refusal(err);
    return {
      values,
      margin,
      error: {
        message: r.message,
        fields: { ...r.fields, ...(r.fields.priceCents ? { price: r.fields.priceCents } : {}) },
      },
    };
  }
}

/**
 * The chosen store's own country, when its platform said it (null: unknown, or no such store: the form's country is
 * used).
 */
async function countryOf(d: DashContext, storeId: string): Promise<string | null> {
  if (!storeId) return null;
  try {
    return (await d.api<Data<Api['Store']>>('GET', `/stores/${encodeURIComponent(storeId)}`)).data.country;
  } catch (err) {
    // A store refused (unknown, another's): the form's country; publishing says why.
    if (err instanceof Refusal) return null;
    throw err;
  }
}

/** Our price for one piece of the product (a quote: discount, shipping and VAT included) against the retail price. */
async function marginOf(
  d: DashContext,
  sku: string,
  retailCents: number,
  country: string,
): Promise<Omit<Margin, 'storeCountry'>> {
  const quote = (
    await d.api<Data<Api['Quote']>>('POST', '/quotes', {
      body: { lines: [{ resellerSku: sku, quantity: 1 }], country },
    })
  ).data;
  return {
    retailCents,
    ourCents: quote.totals.totalCents,
    shippingCents: quote.totals.shippingCents,
    vatCents: quote.totals.vatCents,
    country,
  };
}

/** The product's page section: the stores it is published to, and the form that publishes it to another. */
export async function publishSection(
  d: DashContext,
  views: DashboardViews,
  product: { id: string; title?: string | undefined },
  state: PublishState | undefined,
): Promise<VNode> {
  const published = d.page.can('stores:read') ? await views.publishedTo(d.caller, product.id) : [];
  const stores = d.page.can('stores:read')
    ? (await d.api<ListPage<Api['Store']>>('GET', '/stores', { query: { limit: '100' } })).data.filter(
        (s) => s.status === 'connected',
      )
    : [];
  const values = state?.values ?? {};
  const m = state?.margin;
  return html`<section aria-labelledby="published-h">
    <h2 id="published-h">Published to</h2>
    ${
      published.length === 0
        ? html`<p class="muted">Not published to any store yet.</p>`
        : html`<ul data-testid="published-to">${published.map(
            (p) =>
              html`<li><a href=${`/dashboard/stores/${p.store.id}`}>${p.store.name}</a> (${p.store.platform}): ${p.title}, ${minorUnitsToDecimal(p.priceCents, p.currency)} ${p.currency}, ${p.status}${p.url ? html` · <a href=${p.url}>view in the store</a>` : null}</li>`,
          )}</ul>`
    }
    ${
      d.page.can('stores:write') && stores.length
        ? html`<form class="stack" method="post" action=${`/dashboard/products/${product.id}/publish`} aria-label="Publish to store">
          <h3>Publish to store</h3>
          <${CsrfField} token=${d.page.csrfToken} />
          ${state?.error ? html`<p class="alert" role="alert">${state.error.message}</p>` : null}
          <${Select} idPrefix="pub" name="storeId" label="Store" value=${values.storeId} required=${true} options=${stores.map((s) => ({ value: s.id, label: `${s.name} (${s.platform}${s.country ? `, ${s.country}` : ''})` }))} />
          <${Field} idPrefix="pub" name="title" label="Title in the store" value=${values.title ?? product.title ?? ''} error=${state?.error?.fields.title} required=${true} />
          <${Field} idPrefix="pub" name="price" label="Retail price (€, your customers pay)" value=${values.price ?? ''} error=${state?.error?.fields.price} required=${true} />
          <${Field} idPrefix="pub" name="country" label="Your customers' country, where the store's is unknown (for shipping and VAT)" value=${values.country ?? DEFAULT_COUNTRY} error=${state?.error?.fields.country} required=${true} />
          ${
            m
              ? html`<p data-testid="margin" role="status">Margin: <strong>${euros(m.retailCents - m.ourCents)}</strong> per piece (${euros(m.retailCents)} retail − ${euros(m.ourCents)} our price, ${euros(m.shippingCents)} shipping and ${euros(m.vatCents)} VAT to ${m.country} included; ${m.storeCountry ? html`${m.country}: the store's country` : html`the store's country is unknown`}).</p>`
              : null
          }
          <div><button type="submit" name="intent" value="margin">Show margin</button> <button type="submit" name="intent" value="publish">Publish</button></div>
        </form>`
        : null
    }
  </section>`;
}
