import { currencyDigits, minorUnitsToDecimal, decimalToMinorUnits } from '@print-api/connector-kit';
import { inWords, PUBLICATION_STATUS_WORDS, type PlatformName } from '../../code-words.ts';
import type { ListingMargin } from '../../stores/catalogue/listing-margins.ts';
import { CsrfField, Field, html, type VNode } from '../../../web/html.ts';
import { Refusal } from '../../../kernel/refusal.ts';
import { redirect, type DashContext } from '../dashboard-context.ts';
import type { Api, Data, ListPage } from '../dashboard-data.ts';
import type { DashboardViews } from '../dashboard-views.ts';
import { refusal, Select } from './parts.ts';
import { parsePrice } from './words.ts';

/** What the publish form shows again: what was typed, the margin it gives, or why it was refused. */
export interface PublishState {
  values: {
    storeId?: string | undefined;
    title?: string | undefined;
    price?: string | undefined;
    country?: string | undefined;
    /** The product's image (a public https URL): platforms that list nothing without one (Etsy) need it. */
    imageUrl?: string | undefined;
    /** The store's platform options chosen (`platformOptions.<key>` fields): Etsy's shipping profile… */
    platformOptions?: Record<string, string> | undefined;
  };
  /** What the store asked the merchant to choose (422 platform_options_required), each with its choices by name. */
  options?: PlatformOptionChoice[] | undefined;
  margin?: Margin | undefined;
  error?: { message: string; fields: Record<string, string> } | undefined;
}

interface PlatformOptionChoice {
  option: string;
  label: string;
  choices: Array<{ id: string; name: string }>;
}

type Margin = ListingMargin & {
  /**
   * Whether `country` is the store's own (as its platform said it), not the one typed for a store whose country is
   * unknown.
   */
  storeCountry: boolean;
};

const DEFAULT_COUNTRY = 'NL';

/** An amount in minor units of `currency` as people read it (`£24.95`, `-€1.05`, `CHF 12.00`). */
export function money(cents: number, currency: string): string {
  const digits = currencyDigits(currency);
  const text = `${cents < 0 ? '-' : ''}${minorUnitsToDecimal(Math.abs(cents), currency)}`;
  return new Intl.NumberFormat('en', {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(text as unknown as number);
}

/**
 * `POST /dashboard/products/{id}/publish`: `intent=margin` shows what the retail price (in the store's currency) leaves
 * once our price for one piece (a quote: shipping and VAT included, in euros, converted at the ECB's rate) is paid,
 * for the store's country (the form's country only where the store's is unknown); `intent=publish` publishes the
 * product to the store (POST /stores/{id}/listings) and shows the margin with it. Answers the state to show again,
 * or null once it has redirected.
 */
export async function submitPublish(
  d: DashContext,
  views: DashboardViews,
  product: { id: string; sku: string },
): Promise<PublishState | null> {
  const values = {
    storeId: d.form.storeId ?? '',
    title: d.form.title ?? '',
    price: d.form.price ?? '',
    country: (d.form.country ?? DEFAULT_COUNTRY).trim().toUpperCase(),
    imageUrl: (d.form.imageUrl ?? '').trim(),
    platformOptions: Object.fromEntries(
      Object.entries(d.form).flatMap(([k, v]) =>
        k.startsWith('platformOptions.') && v ? [[k.slice('platformOptions.'.length), v]] : [],
      ),
    ),
  };
  // The choices asked for last time stay on the form while the merchant makes them.
  const asked = parseAsked(d.form.askedOptions);
  let store: { country: string | null; currency: string | null } | null;
  try {
    store = await storeOf(d, values.storeId);
  } catch (err) {
    const r = refusal(err);
    return { values, error: { message: r.message, fields: { storeId: r.message } } };
  }
  // Where the store's currency is not known yet (asked of its platform when publishing), the price is read as euros.
  const currency = store?.currency ?? 'EUR';
  // A price as it is typed in Europe too: 29,95 is 29.95 (every currency the stores sell in has cents).
  const retailCents =
    currencyDigits(currency) === 2 ? (parsePrice(values.price) ?? null) : decimalToMinorUnits(values.price, currency);
  if (retailCents === null || retailCents <= 0) {
    const example = minorUnitsToDecimal(2495, currency);
    const typed = currencyDigits(currency) === 2 ? ` or ${example.replace('.', ',')}` : '';
    return {
      values,
      error: {
        message: `Give the retail price in ${currency} as an amount, like ${example}${typed}.`,
        fields: { price: `an amount in ${currency}, like ${example}${typed}` },
      },
    };
  }
  let margin: Margin | undefined;
  try {
    const found = await views.margin(d.caller, {
      sku: product.sku,
      priceCents: retailCents,
      currency,
      country: store?.country ?? values.country,
    });
    if (found) margin = { ...found, storeCountry: Boolean(store?.country) };
  } catch (err) {
    const r = refusal(err);
    return { values, error: { message: r.message, fields: { country: r.message } } };
  }
  if (d.form.intent !== 'publish') return { values, margin, options: asked };
  try {
    await d.api<Data<Api['PublishedListing']>>('POST', `/stores/${encodeURIComponent(values.storeId)}/listings`, {
      body: {
        resellerProduct: product.id,
        title: values.title,
        priceCents: retailCents,
        ...(values.imageUrl ? { imageUrls: [values.imageUrl] } : {}),
        ...(store?.currency ? { currency: store.currency } : {}),
        ...(Object.keys(values.platformOptions).length ? { platformOptions: values.platformOptions } : {}),
      },
    });
    redirect(d.res, `/dashboard/products/${product.id}?done=listing-published`);
    return null;
  } catch (err) {
    const r = refusal(err);
    const options =
      err instanceof Refusal && err.code === 'platform_options_required'
        ? (err.details ?? []).map((detail) => ({
            option: String(detail.field ?? '').replace(/^platformOptions\./, ''),
            label: String(detail.message ?? '').replace(/^Choose an? |\.$/g, ''),
            choices: (detail.choices as PlatformOptionChoice['choices']) ?? [],
          }))
        : asked;
    return {
      values,
      margin,
      options,
      error: {
        message: r.message,
        fields: {
          ...r.fields,
          ...(r.fields.priceCents ? { price: r.fields.priceCents } : {}),
          ...(r.fields['imageUrls[0]'] ? { imageUrl: r.fields['imageUrls[0]'] } : {}),
        },
      },
    };
  }
}

/** The chosen store's country and currency, when its platform said them (null: no such store, publishing says why). */
async function storeOf(
  d: DashContext,
  storeId: string,
): Promise<{ country: string | null; currency: string | null } | null> {
  if (!storeId) return null;
  try {
    const store = (await d.api<Data<Api['Store']>>('GET', `/stores/${encodeURIComponent(storeId)}`)).data;
    return { country: store.country, currency: store.currency };
  } catch (err) {
    // A store refused (unknown, another's): the form's country; publishing says why.
    if (err instanceof Refusal) return null;
    throw err;
  }
}

/** The choices the form carries along (a hidden field), as the last refusal named them. */
function parseAsked(text: string | undefined): PlatformOptionChoice[] | undefined {
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed)) return undefined;
    return parsed.flatMap((o) =>
      o && typeof o.option === 'string' && typeof o.label === 'string' && Array.isArray(o.choices)
        ? [
            {
              option: o.option,
              label: o.label,
              choices: o.choices.flatMap((c: { id?: unknown; name?: unknown }) =>
                typeof c?.id === 'string' && typeof c?.name === 'string' ? [{ id: c.id, name: c.name }] : [],
              ),
            },
          ]
        : [],
    );
  } catch {
    return undefined;
  }
}

/** The margin line: in the store's currency, with the ECB rate and its date; negative shown as such. */
function marginLine(m: Margin): VNode {
  const c = m.currency;
  if (m.costCents === null || m.marginCents === null)
    return html`<p data-testid="margin" role="status">Margin: cannot be worked out. ${m.notice}</p>`;
  const where = m.storeCountry ? html`${m.country}: the store's country` : html`the store's country is unknown`;
  const rate = m.rate
    ? html`; converted from euros at the ECB rate of ${m.rate.date} (1 EUR = ${m.rate.value} ${m.rate.quote})${m.rate.stale ? html` <span class="flag">stale</span>` : null}`
    : null;
  return html`<p data-testid="margin" role="status" class=${m.marginCents < 0 ? 'alert' : null}>Margin: <strong>${money(m.marginCents, c)}</strong> per piece (${money(m.retailCents, c)} retail − ${money(m.costCents, c)} our price, shipping and VAT to ${m.country} included; ${where}${rate}).${m.marginCents < 0 ? ' The price does not cover ours.' : ''}</p>`;
}

/** What a product page says where a session that may not read stores would list them. */
export const STORES_HIDDEN =
  'The key you signed in with may not see your stores (it lacks the stores:read permission), so where this product is sold and published is not shown. Sign in with a link made for a key that has it to see them.';

/** The product's page section: the stores it is published to, and the form that publishes it to another. */
export async function publishSection(
  d: DashContext,
  deps: { views: DashboardViews; platformName: PlatformName },
  product: { id: string; title?: string | undefined },
  state: PublishState | undefined,
): Promise<VNode> {
  const { views, platformName } = deps;
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
      !d.page.can('stores:read')
        ? html`<p class="muted">${STORES_HIDDEN}</p>`
        : published.length === 0
          ? html`<p class="muted">Not published to any store yet.</p>`
          : html`<ul data-testid="published-to">${published.map(
              (p) =>
                html`<li><a href=${`/dashboard/stores/${p.store.id}`}>${p.store.name}</a> (${platformName(p.store.platform)}): ${p.title}, ${minorUnitsToDecimal(p.priceCents, p.currency)} ${p.currency}, ${inWords(PUBLICATION_STATUS_WORDS, p.status).toLowerCase()}${storeLink(p)}${p.notice ? html`<br /><span class="muted" data-testid="listing-notice">${p.notice}</span>` : null}</li>`,
            )}</ul>`
    }
    ${
      d.page.can('stores:write') && stores.length
        ? html`<form class="stack" method="post" action=${`/dashboard/products/${product.id}/publish`} aria-label="Publish to store">
          <h3>Publish to store</h3>
          <${CsrfField} token=${d.page.csrfToken} />
          ${state?.error ? html`<p class="alert" role="alert">${state.error.message}</p>` : null}
          <${Select} idPrefix="pub" name="storeId" label="Store" value=${values.storeId} required=${true} options=${stores.map((s) => ({ value: s.id, label: `${s.name} (${platformName(s.platform)}${s.country ? `, ${s.country}` : ''}${s.currency ? `, ${s.currency}` : ''})` }))} />
          <${Field} idPrefix="pub" name="title" label="Title in the store" value=${values.title ?? product.title ?? ''} error=${state?.error?.fields.title} required=${true} />
          <${Field} idPrefix="pub" name="price" label="Retail price in the store's currency (your customers pay)" value=${values.price ?? ''} error=${state?.error?.fields.price} required=${true} />
          <${Field} idPrefix="pub" name="imageUrl" label="Image URL (https; Etsy lists nothing without an image)" value=${values.imageUrl ?? ''} error=${state?.error?.fields.imageUrl} />
          <${Field} idPrefix="pub" name="country" label="Your customers' country, where the store's is unknown (for shipping and VAT)" value=${values.country ?? DEFAULT_COUNTRY} error=${state?.error?.fields.country} required=${true} />
          ${(state?.options ?? []).map(
            (o) =>
              html`<${Select} idPrefix="pub" name=${`platformOptions.${o.option}`} label=${`The store's ${o.label}`} value=${values.platformOptions?.[o.option]} required=${true} options=${[{ value: '', label: `Choose a ${o.label}` }, ...o.choices.map((c) => ({ value: c.id, label: c.name }))]} />`,
          )}
          ${state?.options?.length ? html`<input type="hidden" name="askedOptions" value=${JSON.stringify(state.options)} />` : null}
          ${m ? marginLine(m) : null}
          <div><button type="submit" name="intent" value="margin">Show margin</button> <button type="submit" name="intent" value="publish">Publish</button></div>
        </form>`
        : null
    }
  </section>`;
}

/**
 * "view in the store": the listing's page on the platform; a sandbox store's listings have no page on the web
 * (its platform's address never resolves), so the link goes to the store's listings in the dashboard.
 */
function storeLink(p: { url?: string | null; store: { id: string } }): VNode | null {
  if (!p.url) return null;
  let host = '';
  try {
    host = new URL(p.url).hostname;
  } catch {
    return null;
  }
  if (host.endsWith('.invalid'))
    return html` · <a href=${`/dashboard/stores/${p.store.id}#sandbox-listings-h`}>view in the sandbox store</a>`;
  return html` · <a href=${p.url} rel="noreferrer">view in the store</a>`;
}
