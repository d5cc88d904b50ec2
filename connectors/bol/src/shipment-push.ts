import { ConnectorError, type Shipment } from '@print-api/connector-kit';
import { z } from 'zod';
import type { BolApi, BolContext } from './bol-client.ts';
import { PROCESS_WAIT_MS } from './config.ts';
import { isFbb, openQuantity, reference, type BolOrder } from './order-mapper.ts';
import { getOrder } from './order-polling.ts';

/**
 * bol's transporter codes (the v10 `transporterCode` enum of `ChangeTransportRequest`), by the lower-cased names our
 * carriers go by. PostNL is `TNT` at bol (PostNL was TNT Post); any other carrier is `OTHER`.
 */
const TRANSPORTERS: Record<string, string> = {
  postnl: 'TNT',
  'post nl': 'TNT',
  tnt: 'TNT',
  'postnl extra@home': 'TNT-EXTRA',
  'tnt express': 'TNT-EXPRESS',
  dhl: 'DHL',
  'dhl parcel': 'DHLFORYOU',
  'dhl for you': 'DHLFORYOU',
  dhlforyou: 'DHLFORYOU',
  'dhl express': 'DHL',
  'dhl germany': 'DHL_DE',
  'deutsche post dhl': 'DHL_DE',
  'dhl global mail': 'DHL-GLOBAL-MAIL',
  'dhl ecommerce': 'DHL-GLOBAL-MAIL',
  'dpd nl': 'DPD-NL',
  'dpd be': 'DPD-BE',
  ups: 'UPS',
  gls: 'GLS',
  'fedex nl': 'FEDEX_NL',
  'fedex be': 'FEDEX_BE',
  bpost: 'BPOST_BE',
  budbee: 'BUDBEE',
  trunkrs: 'TRUNKRS',
  cycloon: 'CYCLOON',
  'parcel.nl': 'PARCEL-NL',
  packs: 'PACKS',
  dyl: 'DYL',
};

/** Carriers bol knows per country (DPD, FedEx): the code of the recipient's, the Dutch one by default. */
const BY_COUNTRY: Record<string, (country: string) => string> = {
  dpd: (c) => (c === 'BE' ? 'DPD-BE' : 'DPD-NL'),
  fedex: (c) => (c === 'BE' ? 'FEDEX_BE' : 'FEDEX_NL'),
};

export function transporterCode(carrier: string, country = 'NL'): string {
  const key = carrier.trim().toLowerCase().replace(/\s+/g, ' ');
  return TRANSPORTERS[key] ?? BY_COUNTRY[key]?.(country.toUpperCase()) ?? 'OTHER';
}

const processStatusSchema = z.object({
  processStatusId: z.string().optional(),
  entityId: z.string().optional(),
  eventType: z.string(),
  status: z.enum(['PENDING', 'SUCCESS', 'FAILURE', 'TIMEOUT']),
  errorMessage: z.string().optional(),
  createTimestamp: z.string(),
});
type ProcessStatus = z.infer<typeof processStatusSchema>;
const processStatusesSchema = z.object({ processStatuses: z.array(processStatusSchema).default([]) });

/**
 * The order items we printed, each with what it still awaits: a shipment line names the reseller SKU, which is the
 * offer's own `reference` (ignoring case). FBB items and the seller's other items are never shipped by us.
 */
export function printedItems(order: BolOrder, lines: Shipment['lines']) {
  const left = new Map(order.orderItems.map((i) => [i.orderItemId, openQuantity(i)]));
  const picked = new Map<string, number>();
  let matched = false;
  for (const line of lines) {
    let wanted = line.quantity;
    const sku = line.sku?.trim().toLowerCase();
    for (const item of order.orderItems) {
      if (isFbb(item) || item.cancellationRequest) continue;
      if (line.externalLineId ? item.orderItemId !== line.externalLineId : reference(item)?.toLowerCase() !== sku)
        continue;
      matched = true;
      const take = Math.min(wanted, left.get(item.orderItemId) ?? 0);
      if (take <= 0) continue;
      left.set(item.orderItemId, left.get(item.orderItemId)! - take);
      picked.set(item.orderItemId, (picked.get(item.orderItemId) ?? 0) + take);
      wanted -= take;
    }
  }
  if (!matched)
    throw new ConnectorError(
      'invalid_payload',
      `bol order ${order.orderId} has no open item with the reference ${lines.map((l) => l.sku).join(', ')}: nothing shipped`,
    );
  return [...picked].map(([orderItemId, quantity]) => ({ orderItemId, quantity }));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `GET /shared/process-status/{id}` until it is no longer PENDING, or the wait is over (PENDING then). */
async function follow(ctx: BolContext, api: BolApi, status: ProcessStatus): Promise<ProcessStatus> {
  const deadline = ctx.clock().getTime() + PROCESS_WAIT_MS;
  let wait = 250;
  while (status.status === 'PENDING' && status.processStatusId && ctx.clock().getTime() < deadline) {
    await sleep(wait);
    wait = Math.min(wait * 2, 4000);
    status = await api.json(processStatusSchema, {
      method: 'GET',
      path: `/shared/process-status/${encodeURIComponent(status.processStatusId)}`,
      operation: 'getProcessStatus',
    });
  }
  return status;
}

/**
 * A shipment of these items bol is still processing (an earlier attempt's, whose wait ran out): one that succeeded
 * shows in the order as shipped already.
 */
async function earlierShipment(api: BolApi, itemIds: string[]): Promise<ProcessStatus | undefined> {
  for (const id of itemIds) {
    const { processStatuses } = await api.json(processStatusesSchema, {
      method: 'GET',
      path: '/shared/process-status',
      query: { 'entity-id': id, 'event-type': 'CREATE_SHIPMENT' },
      operation: 'findProcessStatus',
    });
    const found = processStatuses.find((p) => p.status === 'PENDING');
    if (found) return found;
  }
  return undefined;
}

/**
 * Tracking back to bol, exactly once: the order's items whose reference is a printed SKU, with what they still await,
 * go in one `POST /retailer/shipments` with our carrier's transporter code and the tracking number; bol answers a
 * process status, followed at `/shared/process-status/{id}` until SUCCESS. Items bol shows shipped already are not
 * shipped again, and a shipment an earlier attempt left pending is followed, not sent again. FAILURE or TIMEOUT is a
 * refusal (recorded with bol's reason, not retried); still PENDING after PROCESS_WAIT_MS, the next attempt follows it.
 */
export async function pushShipment(ctx: BolContext, api: BolApi, shipment: Shipment): Promise<void> {
  const order = await getOrder(api, shipment.externalOrderId);
  const items = printedItems(order, shipment.lines);
  if (items.length === 0) {
    ctx.logger.info('bol shows the printed items shipped already: not shipped again', { orderId: order.orderId });
    return;
  }
  let status = await earlierShipment(
    api,
    items.map((i) => i.orderItemId),
  );
  if (!status) {
    const country = order.shipmentDetails.countryCode;
    status = await api.json(processStatusSchema, {
      method: 'POST',
      path: '/retailer/shipments',
      body: {
        orderItems: items,
        transport: {
          transporterCode: transporterCode(shipment.carrier, country),
          trackAndTrace: shipment.trackingNumber,
        },
      },
      operation: 'createShipment',
    });
  }
  status = await follow(ctx, api, status);
  if (status.status === 'SUCCESS') return;
  const what = `bol's shipment of order ${order.orderId} (process ${status.processStatusId ?? '?'})`;
  if (status.status === 'PENDING')
    throw new ConnectorError('upstream_unavailable', `${what} is still PENDING: followed again on the next attempt`);
  throw new ConnectorError(
    'invalid_payload',
    `${what} ended ${status.status}: ${status.errorMessage ?? 'bol gave no reason'}`,
  );
}
