import { STORES_HIDDEN } from './publish-section.ts';
import { CsrfField, Field, html, sendPage, type VNode } from '../../../web/html.ts';
import type { PlatformName } from '../../code-words.ts';
import { noticeOf, redirect, type DashContext } from '../dashboard-context.ts';
import type { Register } from '../dashboard-router.ts';
import type { DashboardViews } from '../dashboard-views.ts';
import { DashLayout, NextPage, PostButton, refusal, Select, when } from './parts.ts';
import type { Api, Data, ListPage } from '../dashboard-data.ts';
import { publishSection, submitPublish, type PublishState } from './publish-section.ts';

interface Errors {
  message: string;
  fields: Record<string, string>;
}

/** A product's fields as the form shows them: the API's, or what was sent (options as typed). */
type ProductForm = Partial<Omit<Api['ResellerProduct'], 'options'>> & {
  options?: Api['ResellerProduct']['options'] | string;
};

/** `key=value` per line: a product's fixed options as a form edits them (numbers stay numbers). */
function parseOptions(text: string): Record<string, string | number> {
  const options: Record<string, string | number> = {};
  for (const line of text.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const value = line.slice(eq + 1).trim();
    options[line.slice(0, eq).trim()] = /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return options;
}
const optionsText = (options: Record<string, unknown> | undefined) =>
  Object.entries(options ?? {})
    .map(([k, v]) => `${k}=${String(v)}`)
    .join('\n');

/** Products: the reseller's own products (SKU, print product, fixed options, file), with where they are sold. */
export function productsPages(register: Register, deps: { views: DashboardViews; platformName: PlatformName }): void {
  register('get', '/products', async (d) => {
    const q = typeof d.req.query.q === 'string' && d.req.query.q.trim() ? d.req.query.q.trim() : undefined;
    const cursor = typeof d.req.query.cursor === 'string' ? d.req.query.cursor : undefined;
    const page = await d.api<ListPage<Api['ResellerProduct']>>('GET', '/reseller-products', {
      query: { q, cursor, limit: '50' },
    });
    sendPage(
      d.res,
      html`<${DashLayout} title="Products" session=${d.page} notice=${noticeOf(d.req)}>
        ${d.page.can('reseller-products:write') ? html`<p><a href="/dashboard/products/new">New product</a></p>` : null}
        <form class="filters" method="get" action="/dashboard/products" role="search">
          <div><label for="q">Search SKU or title</label><input id="q" name="q" value=${q ?? ''} /></div>
          <button type="submit">Search</button>
        </form>
        ${
          page.data.length === 0
            ? html`<p class="muted">No products${q ? ' match' : ' yet'}.</p>`
            : html`<div class="table"><table>
              <thead><tr><th scope="col">SKU</th><th scope="col">Title</th><th scope="col">Print product</th><th scope="col">Active</th><th scope="col">Store listings</th><th scope="col">Updated</th></tr></thead>
              <tbody>${page.data.map(
                (p) =>
                  html`<tr><td><a href=${`/dashboard/products/${p.id}`}>${p.sku}</a></td><td>${p.title}</td><td>${p.productId}</td><td>${p.active ? 'yes' : 'no'}</td><td>${p.links}</td><td>${when(p.updatedAt)}</td></tr>`,
              )}</tbody>
            </table></div>`
        }
        <${NextPage} base="/dashboard/products" query=${{ q }} cursor=${page.nextCursor} />
      <//>`,
    );
  });

  register('get', '/products/new', (d) => formPage(d, 'New product', '/dashboard/products', {}, undefined, []));

  register('post', '/products', async (d) => {
    const body = {
      sku: d.form.sku ?? '',
      title: d.form.title ?? '',
      productId: d.form.productId ?? '',
      options: parseOptions(d.form.options ?? ''),
      fileUrl: d.form.fileUrl ? d.form.fileUrl : null,
      active: d.form.active === 'on',
    };
    try {
      const created = (await d.api<Data<Api['ResellerProduct']>>('POST', '/reseller-products', { body })).data;
      redirect(d.res, `/dashboard/products/${created.id}?done=product-created`);
    } catch (err) {
      await formPage(
        d,
        'New product',
        '/dashboard/products',
        { ...body, options: d.form.options ?? '' },
        refusal(err),
        [],
      );
    }
  });

  register('get', '/products/{id}', async (d) => {
    const product = (
      await d.api<Data<Api['ResellerProduct']>>(
        'GET',
        `/reseller-products/${encodeURIComponent(String(d.req.params.id))}`,
      )
    ).data;
    await productPage(d, product);
  });

  register('post', '/products/{id}', async (d) => {
    const id = encodeURIComponent(String(d.req.params.id));
    const body = {
      sku: d.form.sku ?? '',
      title: d.form.title ?? '',
      productId: d.form.productId ?? '',
      options: parseOptions(d.form.options ?? ''),
      fileUrl: d.form.fileUrl ? d.form.fileUrl : null,
      active: d.form.active === 'on',
    };
    try {
      const saved = (await d.api<Data<Api['ResellerProduct']>>('PATCH', `/reseller-products/${id}`, { body })).data;
      redirect(d.res, `/dashboard/products/${saved.id}?done=product-saved`);
    } catch (err) {
      const product = (await d.api<Data<Api['ResellerProduct']>>('GET', `/reseller-products/${id}`)).data;
      await productPage(d, { ...product, ...body, options: d.form.options ?? '' }, refusal(err));
    }
  });

  register('post', '/products/{id}/delete', async (d) => {
    const id = encodeURIComponent(String(d.req.params.id));
    try {
      await d.api('DELETE', `/reseller-products/${id}`);
      redirect(d.res, '/dashboard/products?done=product-deleted');
    } catch (err) {
      const r = refusal(err);
      const product = (await d.api<Data<Api['ResellerProduct']>>('GET', `/reseller-products/${id}`)).data;
      await productPage(d, product, { message: r.message, fields: {} });
    }
  });

  register('post', '/products/{id}/publish', async (d) => {
    const product = (
      await d.api<Data<Api['ResellerProduct']>>(
        'GET',
        `/reseller-products/${encodeURIComponent(String(d.req.params.id))}`,
      )
    ).data;
    const state = await submitPublish(d, deps.views, product);
    if (state) await productPage(d, product, undefined, state);
  });

  async function productPage(
    d: DashContext,
    product: ProductForm & { id: string },
    errors?: Errors,
    publish?: PublishState,
  ): Promise<void> {
    // Where it is sold is the stores' business: a key without stores:read sees none of it.
    const selling = d.page.can('stores:read') ? await deps.views.storesSelling(d.caller, product.id) : [];
    const published = await publishSection(d, deps, product, publish);
    await formPage(
      d,
      `Product ${product.sku}`,
      `/dashboard/products/${product.id}`,
      product,
      errors ?? publish?.error,
      selling,
      product.id,
      published,
    );
  }

  async function formPage(
    d: DashContext,
    title: string,
    action: string,
    values: ProductForm,
    errors: Errors | undefined,
    selling: Array<{ id: string; name: string; platform: string; listings: Array<{ title: string }> }>,
    id?: string,
    published?: VNode,
  ): Promise<void> {
    const catalogue = d.page.can('catalog:read')
      ? (await d.api<ListPage<Api['Product']>>('GET', '/products', { query: { limit: '100', lang: 'en' } })).data
      : [];
    const optionErrors = Object.entries(errors?.fields ?? {})
      .filter(([k]) => k.startsWith('options'))
      .map(([k, v]) => `${k}: ${v}`);
    const options = typeof values.options === 'string' ? values.options : optionsText(values.options);
    const isNew = id === undefined;
    // A session that may only read products sees the product, not a form it could not send.
    const form: VNode = !d.page.can('reseller-products:write')
      ? html`<dl class="facts"><dt>SKU</dt><dd>${values.sku ?? ''}</dd><dt>Title</dt><dd>${values.title ?? ''}</dd><dt>Print product</dt><dd>${values.productId ?? ''}</dd><dt>Fixed options</dt><dd>${options || '—'}</dd><dt>Active</dt><dd>${values.active === false ? 'no' : 'yes'}</dd></dl>`
      : html`<form class="stack" method="post" action=${action} aria-label=${title}>
      <${CsrfField} token=${d.page.csrfToken} />
      ${errors ? html`<p class="alert" role="alert">${errors.message}</p>` : null}
      <${Field} name="sku" label="SKU (as in your store)" value=${values.sku ?? ''} error=${errors?.fields.sku} required=${true} />
      <${Field} name="title" label="Title" value=${values.title ?? ''} error=${errors?.fields.title} required=${true} />
      <${Select} name="productId" label="Print product" value=${values.productId} error=${errors?.fields.productId} required=${true} options=${[{ value: '', label: 'Choose…' }, ...catalogue.map((p) => ({ value: p.id, label: p.name ?? p.id }))]} />
      <div>
        <label for="f-options">Fixed options (one key=value per line)</label>
        <textarea id="f-options" name="options" rows="4" cols="40" aria-invalid=${optionErrors.length ? 'true' : undefined} aria-describedby=${optionErrors.length ? 'f-options-error' : undefined}>${options}</textarea>
        ${optionErrors.length ? html`<p id="f-options-error" class="error" role="alert">${optionErrors.join('; ')}</p>` : null}
      </div>
      <${Field} name="fileUrl" label="Default artwork URL (https, optional)" type="url" value=${values.fileUrl ?? ''} error=${errors?.fields.fileUrl} />
      <div><label><input type="checkbox" name="active" checked=${values.active ?? true} /> Active (orders may use it)</label></div>
      <button type="submit">${isNew ? 'Create product' : 'Save'}</button>
    </form>`;
    sendPage(
      d.res,
      html`<${DashLayout} title=${title} session=${d.page} notice=${noticeOf(d.req)}>
        <p><a href="/dashboard/products">← Products</a></p>
        ${form}
        ${
          isNew
            ? null
            : html`<section aria-labelledby="sold-h">
              <h2 id="sold-h">Sold in</h2>
              ${
                !d.page.can('stores:read')
                  ? html`<p class="muted" data-testid="stores-hidden">${STORES_HIDDEN}</p>`
                  : selling.length === 0
                    ? html`<p class="muted">No connected store sells it.</p>`
                    : html`<ul>${selling.map((s) => html`<li><a href=${`/dashboard/stores/${s.id}`}>${s.name}</a> (${deps.platformName(s.platform)})${s.listings.length ? `: ${s.listings.map((l) => l.title).join(', ')}` : ''}</li>`)}</ul>`
              }
              ${
                selling.length
                  ? html`<p class="muted" data-testid="delete-blocked">A store sells it, so it cannot be deleted: that store's orders for it would be skipped. To stop printing it, make it inactive; to delete it, first remove or change its listing in the store, or disconnect the store.</p>`
                  : d.page.can('reseller-products:write')
                    ? html`<${PostButton} action=${`/dashboard/products/${id}/delete`} csrf=${d.page.csrfToken} label="Delete product" confirm="Delete this product?" />`
                    : null
              }
            </section>`
        }
        ${published ?? null}
      <//>`,
      errors ? 422 : 200,
    );
  }
}
