import type { Recipient } from '../orders/orders-tables.ts';
import type { SandboxOrderRow, SandboxProductRow } from './sandbox-platform.ts';
import type { SandboxShipTo } from './sandbox-tables.ts';

/** The recipient as the API writes it (`Recipient`), without the fields left out. */
export type RecipientInput = Recipient;

/** Where a sandbox store order ships when the merchant names no one. */
export const DEFAULT_RECIPIENT: RecipientInput = {
  name: 'Sanne de Vries',
  email: 'sanne@example.nl',
  phone: '+31 6 12345678',
  address1: 'Keizersgracht 123',
  postalCode: '1015 CJ',
  city: 'Amsterdam',
  country: 'NL',
};

/** The API's recipient as the sandbox platform keeps a shipping address (its own field names). */
export function shipTo(r: RecipientInput): SandboxShipTo {
  const { postalCode, ...rest } = r;
  return dropUndefined({ ...rest, postal_code: postalCode });
}

function recipientView(s: SandboxShipTo | null): RecipientInput | null {
  if (!s) return null;
  const { postal_code, ...rest } = s;
  return dropUndefined({ ...rest, postalCode: postal_code });
}

/** A sandbox store order as the sandbox store holds it, with what was pushed back to it. */
export function sandboxOrderView(o: SandboxOrderRow) {
  return {
    externalOrderId: o.id,
    name: o.name,
    paid: o.paid,
    cancelled: o.cancelled,
    lines: o.lines.map((l) => ({
      externalLineId: l.id,
      sku: l.sku,
      quantity: l.quantity,
      title: l.title,
      externalProductId: l.product_id,
    })),
    recipient: recipientView(o.ship_to),
    fulfillments: o.fulfillments.map((f) => ({
      carrier: f.carrier,
      trackingNumber: f.tracking_number,
      trackingUrl: f.tracking_url,
      lines: f.lines.map((l) => ({ externalLineId: l.line_id, sku: l.sku, quantity: l.quantity })),
      createdAt: f.created_at,
    })),
    createdAt: o.created_at.toISOString(),
    updatedAt: o.updated_at.toISOString(),
  };
}

export function sandboxListingView(p: SandboxProductRow) {
  return {
    externalProductId: p.id,
    sku: p.sku,
    title: p.title,
    status: p.status,
    createdAt: p.created_at.toISOString(),
  };
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
