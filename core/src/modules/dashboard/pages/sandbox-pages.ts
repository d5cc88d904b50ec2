import { CsrfField, html, type VNode } from '../../../web/html.ts';
import { inWords, PUBLICATION_STATUS_WORDS } from '../../code-words.ts';
import { redirect, type DashContext } from '../dashboard-context.ts';
import type { Api, ListPage } from '../dashboard-data.ts';
import type { Register } from '../dashboard-router.ts';
import { refusal, when } from './parts.ts';

/** A sandbox form's failure: which form, the message, per field of the form, and what was typed. */
export interface SandboxOrderErrors {
  form?: 'order' | 'listing';
  message: string;
  fields: Record<string, string>;
  values: Record<string, string>;
}

/** Shows the store's page again with a sandbox form's errors (stores-pages.ts' store page). */
export type SandboxStorePage = (d: DashContext, errors: SandboxOrderErrors) => Promise<void>;

const NO_LINE = 'Choose a listing, or type a SKU: a line with neither is nothing we could print.';

/** The form's fields as `POST /stores/{id}/sandbox-orders` takes them: one line (a listing or a SKU), paid or not. */
export function sandboxOrderBody(form: Record<string, string>): unknown {
  const quantity = /^\d+$/.test(form.quantity ?? '') ? Number(form.quantity) : form.quantity;
  const sku = form.sku?.trim();
  const line = {
    ...(form.listing ? { externalProductId: form.listing } : {}),
    ...(sku ? { sku } : {}),
    quantity,
  };
  return { lines: [line], paid: form.paid === 'on' };
}

/** The API's field names (`lines[0].quantity`, `lines[0].externalProductId`) as the form's (`quantity`, `listing`). */
export function sandboxFormFields(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [
      k.replace(/^lines\[0\]\./, '').replace(/^externalProductId$/, 'listing'),
      v,
    ]),
  );
}

/** The sandbox store's forms: a store order made, a listing added (test mode; the API refuses other stores). */
export function sandboxPages(register: Register, storePage: SandboxStorePage): void {
  register('post', '/stores/{id}/sandbox-orders', async (d) => {
    const id = encodeURIComponent(String(d.req.params.id));
    if (!d.form.listing && !d.form.sku?.trim())
      return storePage(d, { form: 'order', message: NO_LINE, fields: { sku: NO_LINE }, values: d.form });
    try {
      await d.api('POST', `/stores/${id}/sandbox-orders`, { body: sandboxOrderBody(d.form) });
      redirect(d.res, `/dashboard/stores/${id}?done=sandbox-order-made`);
    } catch (err) {
      const r = refusal(err);
      await storePage(d, { form: 'order', message: r.message, fields: sandboxFormFields(r.fields), values: d.form });
    }
  });

  register('post', '/stores/{id}/sandbox-listings', async (d) => {
    const id = encodeURIComponent(String(d.req.params.id));
    const sku = d.form.sku?.trim();
    try {
      await d.api('POST', `/stores/${id}/sandbox-listings`, {
        body: { title: d.form.title ?? '', ...(sku ? { sku } : {}) },
      });
      redirect(d.res, `/dashboard/stores/${id}?done=sandbox-listing-added#sandbox-listings-h`);
    } catch (err) {
      const r = refusal(err);
      await storePage(d, { form: 'listing', message: r.message, fields: r.fields, values: d.form });
    }
  });
}

/** A text input with its label, a hint and the error next to it, suggesting `list` (a datalist's id). */
function TextInput(props: {
  id: string;
  name: string;
  label: string;
  value: string;
  error?: string | undefined;
  hint: string;
  list?: string;
  required?: boolean;
}): VNode {
  const describedBy = [`${props.id}-hint`, ...(props.error ? [`${props.id}-error`] : [])].join(' ');
  return html`<div>
    <label for=${props.id}>${props.label}</label>
    <input id=${props.id} name=${props.name} type="text" value=${props.value} list=${props.list} required=${props.required ?? false} autocomplete="off" aria-invalid=${props.error ? 'true' : undefined} aria-describedby=${describedBy} />
    <p id=${`${props.id}-hint`} class="muted">${props.hint}</p>
    ${props.error ? html`<p id=${`${props.id}-error`} class="error" role="alert">${props.error}</p>` : null}
  </div>`;
}

/**
 * A sandbox store's page gains what its customers and its owner do there (test mode): the
 * store's listings, with a form to add one; a store order made (of a listing, or of a SKU), which
 * arrives as a real store order would; and the store orders as the sandbox store holds them, with
 * the tracking pushed back once they ship.
 */
export async function sandboxSection(
  d: DashContext,
  storeId: string,
  canWrite: boolean,
  errors?: SandboxOrderErrors,
): Promise<VNode> {
  const [orders, listings, own] = await Promise.all([
    d.api<ListPage<Api['SandboxStoreOrder']>>('GET', `/stores/${storeId}/sandbox-orders`, { query: { limit: '25' } }),
    d.api<ListPage<Api['SandboxListing']>>('GET', `/stores/${storeId}/sandbox-listings`, { query: { limit: '100' } }),
    canWrite && d.page.can('reseller-products:read')
      ? d.api<ListPage<Api['ResellerProduct']>>('GET', '/reseller-products', {
          query: { active: 'true', limit: '100' },
        })
      : Promise.resolve({ data: [] as Api['ResellerProduct'][], nextCursor: null }),
  ]);
  const orderErr = errors && errors.form !== 'listing' ? errors : undefined;
  const listingErr = errors?.form === 'listing' ? errors : undefined;
  const active = listings.data.filter((l) => l.status === 'active');
  const skuHint =
    own.data.length > 0
      ? 'One of your SKUs is suggested as you type; another SKU makes a line you can map later.'
      : 'Your products’ SKUs are matched; another SKU makes a line you can map later.';
  return html`<section aria-labelledby="sandbox-listings-h">
    <h2 id="sandbox-listings-h">Listings in the sandbox store</h2>
    <p class="muted">What the sandbox store sells. A listing with one of your SKUs matches your product; one with another SKU shows under “Unmatched listings” below, for you to map.</p>
    ${
      listings.data.length === 0
        ? html`<p class="muted">The sandbox store lists nothing yet.</p>`
        : html`<div class="table"><table>
          <thead><tr><th scope="col">Listing</th><th scope="col">SKU</th><th scope="col">State</th><th scope="col">Added</th></tr></thead>
          <tbody>${listings.data.map(
            (l) =>
              html`<tr data-sandbox-listing=${l.externalProductId}><td>${l.title}</td><td>${l.sku ?? '—'}</td><td>${inWords(PUBLICATION_STATUS_WORDS, l.status)}</td><td>${when(l.createdAt)}</td></tr>`,
          )}</tbody>
        </table></div>`
    }
    ${own.data.length > 0 ? html`<datalist id="own-skus">${own.data.map((p) => html`<option value=${p.sku}>${p.title}</option>`)}</datalist>` : null}
    ${
      canWrite
        ? html`<form class="stack" method="post" action=${`/dashboard/stores/${storeId}/sandbox-listings`} aria-label="Add a listing to the sandbox store">
          <${CsrfField} token=${d.page.csrfToken} />
          ${listingErr ? html`<p class="alert" role="alert">${listingErr.message}</p>` : null}
          <${TextInput} id="sandbox-listing-title" name="title" label="Listing title" value=${listingErr?.values.title ?? ''} error=${listingErr?.fields.title} hint="As customers see it in the store, e.g. “Tulip poster A2”." required=${true} />
          <${TextInput} id="sandbox-listing-sku" name="sku" label="Listing SKU (optional)" value=${listingErr?.values.sku ?? ''} error=${listingErr?.fields.sku} hint=${skuHint} list=${own.data.length ? 'own-skus' : undefined} />
          <button type="submit">Add the listing</button>
        </form>`
        : null
    }
  </section>
  <section aria-labelledby="sandbox-h">
    <h2 id="sandbox-h">Sandbox store orders</h2>
    ${
      canWrite
        ? html`<form class="stack" method="post" action=${`/dashboard/stores/${storeId}/sandbox-orders`} aria-label="Make a store order">
          <${CsrfField} token=${d.page.csrfToken} />
          <p class="muted">A customer orders in this sandbox store: the order comes in as a real store's would, and its lines of your products are printed (test mode: never charged).</p>
          ${orderErr ? html`<p class="alert" role="alert">${orderErr.message}</p>` : null}
          <div>
            <label for="sandbox-listing">Listing</label>
            <select id="sandbox-listing" name="listing" aria-invalid=${orderErr?.fields.listing ? 'true' : undefined}>
              <option value="">No listing: the SKU below</option>
              ${active.map((l) => html`<option value=${l.externalProductId} selected=${orderErr?.values.listing === l.externalProductId}>${l.title}${l.sku ? ` (${l.sku})` : ''}</option>`)}
            </select>
            ${orderErr?.fields.listing ? html`<p class="error" role="alert">${orderErr.fields.listing}</p>` : null}
          </div>
          <${TextInput} id="sandbox-sku" name="sku" label="SKU" value=${orderErr?.values.sku ?? ''} error=${orderErr?.fields.sku} hint=${`For a line of no listing (a listing’s own SKU is used otherwise). ${skuHint}`} list=${own.data.length ? 'own-skus' : undefined} />
          <div>
            <label for="sandbox-quantity">Quantity</label>
            <input id="sandbox-quantity" name="quantity" type="number" value=${orderErr?.values.quantity ?? '1'} required aria-invalid=${orderErr?.fields.quantity ? 'true' : undefined} aria-describedby=${orderErr?.fields.quantity ? 'sandbox-quantity-error' : undefined} />
            ${orderErr?.fields.quantity ? html`<p id="sandbox-quantity-error" class="error" role="alert">${orderErr.fields.quantity}</p>` : null}
          </div>
          <label class="check" for="sandbox-paid"><input id="sandbox-paid" name="paid" type="checkbox" checked=${orderErr ? orderErr.values.paid === 'on' : true} /> Paid: the customer has paid (else the order waits for payment)</label>
          <button type="submit">Make the store order</button>
        </form>`
        : null
    }
    ${
      orders.data.length === 0
        ? html`<p class="muted">No sandbox store order yet.</p>`
        : html`<div class="table"><table>
          <thead><tr><th scope="col">Store order</th><th scope="col">Lines</th><th scope="col">Paid</th><th scope="col">Tracking pushed back</th><th scope="col">Made</th></tr></thead>
          <tbody>${orders.data.map(
            (o) => html`<tr data-sandbox-order=${o.externalOrderId}>
              <td>${o.name}</td>
              <td>${o.lines.map((l) => html`<div>${l.title ?? l.sku ?? 'a line without SKU'}${l.title && l.sku ? ` (${l.sku})` : ''} × ${l.quantity}</div>`)}</td>
              <td>${o.paid ? 'yes' : 'no'}</td>
              <td>${o.fulfillments.length === 0 ? '—' : o.fulfillments.map((f) => html`<div>${f.carrier} <a href=${f.trackingUrl} rel="noreferrer">${f.trackingNumber}</a></div>`)}</td>
              <td>${when(o.createdAt)}</td>
            </tr>`,
          )}</tbody>
        </table></div>`
    }
  </section>`;
}
