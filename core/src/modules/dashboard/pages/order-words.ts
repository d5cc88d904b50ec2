import { html, type VNode } from '../../../web/html.ts';
import { Refusal } from '../../../kernel/refusal.ts';
import type { DashContext } from '../dashboard-context.ts';
import type { Api, Data } from '../dashboard-data.ts';

/** An order's payment as a sentence: how it was paid, or why it was not. */
export function paymentWords(p: Api['Order']['payment'], mode: string): string {
  const by = p.method === 'card' ? 'by card' : p.method === 'wallet' ? 'from your wallet' : '';
  switch (p.status) {
    case 'paid':
      return `Paid ${by}`.trim() + '.';
    case 'charging':
      return 'The card is being charged.';
    case 'declined':
      return 'The card was declined.';
    case 'refunded':
      return 'Refunded to your wallet (cancelled after payment).';
    case 'not_charged':
      return mode === 'test' ? 'Not charged: a test order is never charged.' : 'Not charged: nothing to pay.';
    default:
      return 'Not paid yet.';
  }
}

/** Names of a catalogue product's options and their values, in English (key → name; key → value → label). */
export interface OptionNames {
  names: Map<string, string>;
  values: Map<string, Map<string, string>>;
}

/**
 * The option names of the catalogue products of `productIds` (GET /products/{id}): the customer
 * options and the automatic ones (`sheetFormat` is "Press sheet"). A product the session cannot
 * read leaves its keys as they are.
 */
export async function optionNamesOf(d: DashContext, productIds: string[]): Promise<OptionNames> {
  const names = new Map<string, string>();
  const values = new Map<string, Map<string, string>>();
  if (!d.page.can('catalog:read')) return { names, values };
  for (const id of new Set(productIds)) {
    let p: Api['ProductDetail'];
    try {
      p = (
        await d.api<Data<Api['ProductDetail']>>('GET', `/products/${encodeURIComponent(id)}`, {
          query: { lang: 'en' },
        })
      ).data;
    } catch (err) {
      if (err instanceof Refusal) continue;
      throw err;
    }
    for (const o of p.options) {
      names.set(o.key, o.name);
      const labels = values.get(o.key) ?? new Map<string, string>();
      for (const v of o.values) labels.set(String(v.value), v.label);
      values.set(o.key, labels);
    }
    const automatic = (p as { automaticOptions?: Array<{ key: string; name: string }> }).automaticOptions ?? [];
    for (const a of automatic) if (!names.has(a.key)) names.set(a.key, a.name);
  }
  return { names, values };
}

/** A line's options as "Paper: Matt coated 350 g, Press sheet: SRA3". */
export function optionsWords(options: Record<string, string | number>, n: OptionNames): string {
  return Object.entries(options)
    .map(([k, v]) => `${n.names.get(k) ?? k}: ${n.values.get(k)?.get(String(v)) ?? String(v)}`)
    .join(', ');
}

const COUNTRIES = new Intl.DisplayNames(['en'], { type: 'region' });

/**
 * The recipient as a carrier prints it on the label: one line each (name, company, street,
 * postal code and city with the province after it, the country in capitals).
 */
export function AddressLabel(props: {
  r: {
    name: string;
    company?: string | undefined;
    address1: string;
    address2?: string | undefined;
    postalCode: string;
    city: string;
    state?: string | undefined;
    country: string;
  };
  testId?: string;
}): VNode {
  const r = props.r;
  let country = r.country;
  try {
    country = COUNTRIES.of(r.country) ?? r.country;
  } catch {
    // Not a region code: shown as it is.
  }
  const lines = [
    r.name,
    r.company,
    r.address1,
    r.address2,
    `${r.postalCode} ${r.city}${r.state ? ` ${r.state}` : ''}`,
    country.toUpperCase(),
  ].filter((l): l is string => !!l);
  return html`<address data-testid=${props.testId}>${lines.map((l, i) => html`${i > 0 ? html`<br />` : null}${l}`)}</address>`;
}
