import { CsrfField, html, type VNode } from '../../../web/html.ts';
import type { DashContext } from '../dashboard-context.ts';
import type { Api, ListPage } from '../dashboard-data.ts';
import { Input, when } from './parts.ts';

/** The sandbox order form's failure: the API's message, per field of the form. */
export interface SandboxOrderErrors {
  message: string;
  fields: Record<string, string>;
  values: Record<string, string>;
}

/** The form's fields as `POST /stores/{id}/sandbox-orders` takes them: one line, paid or not. */
export function sandboxOrderBody(form: Record<string, string>): unknown {
  const quantity = /^\d+$/.test(form.quantity ?? '') ? Number(form.quantity) : form.quantity;
  return { lines: [{ ...(form.sku ? { sku: form.sku } : {}), quantity }], paid: form.paid === 'on' };
}

/** The API's field names (`lines[0].quantity`) as the form's (`quantity`). */
export function sandboxFormFields(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k.replace(/^lines\[0\]\./, ''), v]));
}

/**
 * A sandbox store's page gains what its customers do (test mode): a store order made (SKU,
 * quantity, paid), which arrives as a real store order would, and the store orders as the
 * sandbox store holds them, with the tracking pushed back once they ship.
 */
export async function sandboxSection(
  d: DashContext,
  storeId: string,
  canWrite: boolean,
  errors?: SandboxOrderErrors,
): Promise<VNode> {
  const orders = await d.api<ListPage<Api['SandboxStoreOrder']>>('GET', `/stores/${storeId}/sandbox-orders`, {
    query: { limit: '25' },
  });
  return html`<section aria-labelledby="sandbox-h">
    <h2 id="sandbox-h">Sandbox store orders</h2>
    ${
      canWrite
        ? html`<form class="stack" method="post" action=${`/dashboard/stores/${storeId}/sandbox-orders`} aria-label="Make a store order">
          <${CsrfField} token=${d.page.csrfToken} />
          <p class="muted">A customer orders in this sandbox store: the order comes in as a real store's would, signed, and its lines with one of your SKUs are printed (test mode: never charged).</p>
          ${errors ? html`<p class="alert" role="alert">${errors.message}</p>` : null}
          <${Input} idPrefix="sandbox" name="sku" label="SKU" value=${errors?.values.sku ?? ''} error=${errors?.fields.sku} required=${false} />
          <${Input} idPrefix="sandbox" name="quantity" label="Quantity" type="number" value=${errors?.values.quantity ?? '1'} error=${errors?.fields.quantity} required=${true} />
          <div><input id="sandbox-paid" name="paid" type="checkbox" checked=${errors ? errors.values.paid === 'on' : true} /> <label for="sandbox-paid">Paid</label></div>
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
              <td>${o.lines.map((l) => html`<div>${l.sku ?? '(no SKU)'} × ${l.quantity}</div>`)}</td>
              <td>${o.paid ? 'yes' : 'no'}</td>
              <td>${o.fulfillments.length === 0 ? '—' : o.fulfillments.map((f) => html`<div>${f.carrier} <a href=${f.trackingUrl} rel="noreferrer">${f.trackingNumber}</a></div>`)}</td>
              <td>${when(o.createdAt)}</td>
            </tr>`,
          )}</tbody>
        </table></div>`
    }
  </section>`;
}
