import { randomBytes, randomUUID } from 'node:crypto';
import {
  answerWith,
  ContractLog,
  OpenApiContract,
  type FakeHttpsServer,
  type FakeReply,
  type OrderSpec,
} from '@print-api/connector-kit/testing';
import retailerModel from './fixtures/contract/retailer-v10.json' with { type: 'json' };
import sharedModel from './fixtures/contract/shared-v10.json' with { type: 'json' };
import transporters from './fixtures/contract/transporter-codes-v10.json' with { type: 'json' };

/** bol's published contract (Retailer and Shared API v10): every API call is checked against its own. */
const CONTRACTS: ReadonlyArray<[prefix: string, contract: OpenApiContract]> = [
  ['/retailer/', new OpenApiContract(retailerModel, 'bol Retailer API v10')],
  ['/shared/', new OpenApiContract(sharedModel, 'bol Shared API v10')],
];
const V10 = 'application/vnd.retailer.v10+json';
const TRANSPORTER_CODES = new Set<string>(transporters.ChangeTransportRequest.properties.transporterCode.enum);
const TOKEN_SECONDS = 299;
const PAGE_SIZE = 50;

/** bol's error body (`Problem`), as every API error carries it. */
export const problem = (
  status: number,
  title: string,
  detail: string,
  violations: string[] = [],
  headers: Record<string, string> = {},
): FakeReply => [
  status,
  {
    type: 'https://api.bol.com/problems',
    title,
    status,
    detail,
    host: 'Instance-001',
    instance: `https://api.bol.com/retailer/${randomUUID()}`,
    violations: violations.map((reason) => ({ name: 'request', reason })),
  },
  { 'content-type': V10, ...headers },
];

/** An order item as bol holds it (the detail's `OrderOrderItem`, with its fulfilment status). */
export type BolItemJson = Record<string, any> & {
  orderItemId: string;
  quantity: number;
  quantityShipped: number;
  quantityCancelled: number;
  cancellationRequest: boolean;
  fulfilment: { method: 'FBR' | 'FBB' } & Record<string, unknown>;
  latestChangedDateTime: string;
};
export interface BolOrderJson {
  orderId: string;
  pickupPoint: boolean;
  orderPlacedDateTime: string;
  shipmentDetails: Record<string, unknown>;
  billingDetails: Record<string, unknown>;
  orderItems: BolItemJson[];
  /** Not paid yet: bol does not hand the order to the seller (neither listed nor readable). */
  hidden?: boolean;
}

export interface SeenCall {
  operation: string;
  query: Record<string, string>;
  body?: any;
  at: number;
}

interface Process {
  id: string;
  entityId: string;
  eventType: string;
  createdAt: string;
  status: 'PENDING' | 'SUCCESS' | 'FAILURE' | 'TIMEOUT';
  pendingLeft: number;
  outcome: { status: 'SUCCESS' | 'FAILURE' | 'TIMEOUT'; errorMessage?: string };
  shipment: { orderId: string; items: Array<{ orderItemId: string; quantity: number }>; transport: any };
}

/** One seller on the fake: its API credentials, tokens, orders, shipments and what it was asked. */
export class FakeBolSeller {
  readonly clientId = randomUUID();
  readonly clientSecret = randomBytes(24).toString('base64url');
  readonly orders = new Map<string, BolOrderJson>();
  readonly tokens = new Map<string, number>();
  readonly calls: SeenCall[] = [];
  readonly processes = new Map<string, Process>();
  /** Shipments bol accepted (SUCCESS): order, items, transport. */
  readonly shipments: Array<Process['shipment']> = [];
  tokensIssued = 0;
  revoked = false;
  /** How the next shipments end, and after how many PENDING reads. */
  shipmentOutcome: Process['outcome'] = { status: 'SUCCESS' };
  pendingReads = 2;
  #faults: Array<{ operation: string; reply: FakeReply }> = [];

  faultNext(operation: string, reply: FakeReply): void {
    this.#faults.push({ operation, reply });
  }

  takeFault(operation: string): FakeReply | undefined {
    const i = this.#faults.findIndex((f) => f.operation === operation);
    return i < 0 ? undefined : this.#faults.splice(i, 1)[0]!.reply;
  }

  seen(operation: string): SeenCall[] {
    return this.calls.filter((c) => c.operation === operation);
  }

  save(order: BolOrderJson): void {
    this.orders.set(order.orderId, order);
  }

  expireTokens(): void {
    for (const token of this.tokens.keys()) this.tokens.set(token, 0);
  }

  /** The seller deletes the API credentials in the seller dashboard: they and their tokens stop working. */
  revoke(): void {
    this.revoked = true;
    this.tokens.clear();
  }
}

const stamp = () => new Date().toISOString();

/**
 * bol for our tests, on one local HTTPS server: the login's `/token` (client credentials in HTTP Basic, checked
 * exactly; 299-second tokens) and the Retailer and Shared API v10 (a live Bearer token and `Accept:
 * application/vnd.retailer.v10+json` on every call, each call held to the vendored OpenAPI, errors as `Problem`,
 * scripted 429s with Retry-After): the orders list (FBR/FBB, OPEN/ALL, latest-change-date, 50 a page), an order's
 * detail, shipments (known open items, a known transporter code) answered with a process status that stays PENDING
 * for a few reads, then SUCCESS (the items shipped) or the scripted FAILURE/TIMEOUT.
 */
export class FakeBol {
  readonly sellers: FakeBolSeller[] = [];
  readonly contractLog = new ContractLog();
  url = '';

  settings(): Record<string, string> {
    return { CONNECTOR_BOL_LOGIN_URL: this.url, CONNECTOR_BOL_API_URL: this.url };
  }

  serve(server: { url: string; fallback(handler: Parameters<FakeHttpsServer['fallback']>[0]): void }): void {
    this.url = server.url;
    server.fallback(answerWith((req) => this.answer(req)));
  }

  seller(): FakeBolSeller {
    const seller = new FakeBolSeller();
    this.sellers.push(seller);
    return seller;
  }

  async answer(req: Request): Promise<FakeReply> {
    const url = new URL(req.url);
    if (url.pathname === '/token') return this.#token(req, url);
    const contract = CONTRACTS.find(([prefix]) => url.pathname.startsWith(prefix))?.[1];
    if (!contract) return problem(404, 'Not Found', `No resource ${url.pathname}.`);
    const bearer = /^Bearer (\S+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
    const seller = this.sellers.find((s) => bearer && s.tokens.has(bearer));
    if (!seller || seller.tokens.get(bearer!)! <= Date.now())
      return problem(401, 'Unauthorized', bearer ? 'The access token is expired or invalid.' : 'No access token.');
    if (req.headers.get('accept') !== V10)
      return problem(406, 'Not Acceptable', `Accept must be ${V10}, was ${req.headers.get('accept')}.`);
    const text = req.method === 'GET' ? '' : await req.text();
    if (text && req.headers.get('content-type') !== V10)
      return problem(415, 'Unsupported Media Type', `Content-Type must be ${V10}.`);
    const violations = this.contractLog.record(contract, {
      method: req.method,
      path: url.pathname,
      query: url.searchParams,
      body: text,
      contentType: req.headers.get('content-type') ?? undefined,
    });
    if (violations.length > 0) return problem(400, 'Bad Request', 'Request contains invalid value(s).', violations);
    const query = Object.fromEntries(url.searchParams);
    const route = (operation: string, body?: unknown): FakeReply | undefined => {
      seller.calls.push({ operation, query, body, at: Date.now() });
      return seller.takeFault(operation);
    };
    const path = url.pathname;
    if (req.method === 'GET' && path === '/retailer/orders')
      return route('listOrders') ?? this.#list(seller, url.searchParams);
    const one = /^\/retailer\/orders\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && one) {
      const order = seller.orders.get(decodeURIComponent(one[1]!));
      const fault = route('getOrder');
      if (fault) return fault;
      if (!order || order.hidden) return problem(404, 'Not Found', `Order ${one[1]} not found.`);
      const { hidden: _h, ...shown } = order;
      return [200, shown, { 'content-type': V10 }];
    }
    if (req.method === 'POST' && path === '/retailer/shipments')
      return route('createShipment', JSON.parse(text)) ?? this.#ship(seller, JSON.parse(text));
    const status = /^\/shared\/process-status\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && status)
      return route('getProcessStatus') ?? this.#status(seller, decodeURIComponent(status[1]!));
    if (req.method === 'GET' && path === '/shared/process-status') {
      const fault = route('findProcessStatus');
      if (fault) return fault;
      const found = [...seller.processes.values()].filter(
        (p) => p.entityId === query['entity-id'] && p.eventType === query['event-type'],
      );
      return [200, { processStatuses: found.map(processJson) }, { 'content-type': V10 }];
    }
    return problem(404, 'Not Found', `No resource ${req.method} ${path}.`);
  }

  #token(req: Request, url: URL): FakeReply {
    const oauthError = (status: number, error: string, description: string): FakeReply => [
      status,
      { error, error_description: description },
    ];
    if (req.method !== 'POST') return oauthError(405, 'invalid_request', 'POST only');
    if (url.searchParams.get('grant_type') !== 'client_credentials')
      return oauthError(400, 'unsupported_grant_type', `grant_type ${url.searchParams.get('grant_type')}`);
    const basic = /^Basic (\S+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
    const [id, ...secret] = basic ? Buffer.from(basic, 'base64').toString().split(':') : [];
    const seller = this.sellers.find((s) => s.clientId === id && s.clientSecret === secret.join(':') && !s.revoked);
    if (!seller) return oauthError(401, 'invalid_client', 'Bad credentials');
    const token = randomBytes(32).toString('base64url');
    seller.tokens.set(token, Date.now() + TOKEN_SECONDS * 1000);
    seller.tokensIssued++;
    return [200, { access_token: token, token_type: 'Bearer', expires_in: TOKEN_SECONDS, scope: 'RETAILER' }];
  }

  #list(seller: FakeBolSeller, q: URLSearchParams): FakeReply {
    const method = q.get('fulfilment-method') ?? 'FBR';
    const status = q.get('status') ?? 'OPEN';
    const day = q.get('latest-change-date');
    const page = Number(q.get('page') ?? 1);
    const open = (i: BolItemJson) => i.quantity - i.quantityShipped - i.quantityCancelled > 0;
    const orders = [...seller.orders.values()]
      .filter((o) => !o.hidden)
      .map((o) => ({
        ...o,
        orderItems: o.orderItems.filter((i) => method === 'ALL' || i.fulfilment.method === method),
      }))
      .map((o) => ({
        ...o,
        orderItems: o.orderItems.filter(
          (i) =>
            (status === 'ALL' || (status === 'OPEN' ? open(i) : i.quantityShipped > 0)) &&
            (!day || amsterdamDay(i.latestChangedDateTime) === day),
        ),
      }))
      .filter((o) => o.orderItems.length > 0)
      .sort((a, b) => a.orderPlacedDateTime.localeCompare(b.orderPlacedDateTime));
    const shown = orders.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map((o) => ({
      orderId: o.orderId,
      orderPlacedDateTime: o.orderPlacedDateTime,
      orderItems: o.orderItems.map((i) => ({
        orderItemId: i.orderItemId,
        ean: i.product.ean,
        fulfilmentMethod: i.fulfilment.method,
        fulfilmentStatus: open(i) ? 'OPEN' : 'HANDLED',
        quantity: i.quantity,
        quantityShipped: i.quantityShipped,
        quantityCancelled: i.quantityCancelled,
        cancellationRequest: i.cancellationRequest,
        latestChangedDateTime: i.latestChangedDateTime,
      })),
    }));
    return [200, shown.length > 0 ? { orders: shown } : {}, { 'content-type': V10 }];
  }

  #ship(seller: FakeBolSeller, body: any): FakeReply {
    const items = body.orderItems as Array<{ orderItemId: string; quantity?: number }>;
    const owners = items.map((i) =>
      [...seller.orders.values()].find((o) => o.orderItems.some((x) => x.orderItemId === i.orderItemId)),
    );
    if (owners.some((o) => !o)) return problem(400, 'Bad Request', 'Unknown order item id.');
    if (new Set(owners.map((o) => o!.orderId)).size > 1)
      return problem(400, 'Bad Request', 'All order items of a shipment must belong to one order.');
    if (body.shippingLabelId === undefined && !body.transport)
      return problem(400, 'Bad Request', 'Either a shipping label or a transport is required.');
    if (body.transport && !TRANSPORTER_CODES.has(body.transport.transporterCode))
      return problem(400, 'Bad Request', `Unknown transporterCode ${body.transport.transporterCode}.`);
    const shipment = {
      orderId: owners[0]!.orderId,
      items: items.map((i) => {
        const own = owners[0]!.orderItems.find((x) => x.orderItemId === i.orderItemId)!;
        return { orderItemId: i.orderItemId, quantity: i.quantity ?? own.quantity - own.quantityShipped };
      }),
      transport: body.transport,
    };
    for (const i of shipment.items) {
      const own = owners[0]!.orderItems.find((x) => x.orderItemId === i.orderItemId)!;
      if (own.fulfilment.method === 'FBB' || i.quantity < 1 || i.quantity > own.quantity - own.quantityShipped)
        return problem(400, 'Bad Request', `Order item ${i.orderItemId} cannot be shipped (${i.quantity}).`);
    }
    const p: Process = {
      id: String(1_000_000_000 + seller.processes.size + Math.floor(Math.random() * 1000) * 10_000),
      entityId: shipment.items[0]!.orderItemId,
      eventType: 'CREATE_SHIPMENT',
      createdAt: stamp(),
      status: 'PENDING',
      pendingLeft: seller.pendingReads,
      outcome: seller.shipmentOutcome,
      shipment,
    };
    seller.processes.set(p.id, p);
    return [202, processJson(p), { 'content-type': V10 }];
  }

  #status(seller: FakeBolSeller, id: string): FakeReply {
    const p = seller.processes.get(id);
    if (!p) return problem(404, 'Not Found', `Process status ${id} not found.`);
    if (p.status === 'PENDING' && p.pendingLeft-- <= 0) {
      p.status = p.outcome.status;
      if (p.status === 'SUCCESS') {
        const order = seller.orders.get(p.shipment.orderId)!;
        for (const i of p.shipment.items) {
          const own = order.orderItems.find((x) => x.orderItemId === i.orderItemId)!;
          own.quantityShipped += i.quantity;
          own.latestChangedDateTime = stamp();
        }
        seller.shipments.push(p.shipment);
      }
    }
    return [200, processJson(p), { 'content-type': V10 }];
  }
}

function processJson(p: Process) {
  return {
    processStatusId: p.id,
    entityId: p.entityId,
    eventType: p.eventType,
    description: `Example process status description for processing ${p.entityId}.`,
    status: p.status,
    ...(p.status === 'FAILURE' || p.status === 'TIMEOUT'
      ? { errorMessage: p.outcome.errorMessage ?? 'The process timed out.' }
      : {}),
    createTimestamp: p.createdAt,
    links: [{ rel: 'self', href: `https://api.bol.com/shared/process-status/${p.id}`, method: 'GET' }],
  };
}

export const amsterdamDay = (iso: string) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Europe/Amsterdam',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(iso));

let nextOrder = 1;
/** A bol order id (ten digits, A prefix for the v10 era), unique in this run. */
export const bolOrderId = () => `A${String(2_000_000 + (process.pid % 1000) * 1000 + nextOrder++).padStart(9, '0')}`;

/** Where the fake's orders go: a Belgian business address with a house-number extension. */
export const SHIPMENT_DETAILS = {
  salutation: 'FEMALE',
  firstName: 'Ans',
  surname: 'Peeters',
  streetName: 'Kerkstraat',
  houseNumber: '12',
  houseNumberExtension: 'A',
  extraAddressInformation: 'Achterdeur',
  zipCode: '2000',
  city: 'Antwerpen',
  countryCode: 'BE',
  email: '2ok6fjfnbzwd7kmqmzuc6vrdnt3v5y@verkopen.bol.com',
  company: 'Drukkerij Peeters BV',
  language: 'nl-BE',
};

export interface LineOptions {
  /** Fulfilled by bol from its own stock. */
  fbb?: boolean;
  /** The customer asked to cancel it. */
  cancellationRequest?: boolean;
}

/** The order as bol's detail answers it, with the spec's facts: one order item per line. */
export function bolOrderOf(
  spec: OrderSpec & { id: string },
  opts: { lines?: LineOptions[]; shipmentDetails?: Record<string, unknown>; existing?: BolOrderJson } = {},
): BolOrderJson {
  const at = spec.updatedAt ?? stamp();
  const placed = opts.existing?.orderPlacedDateTime ?? at;
  return {
    orderId: spec.id,
    pickupPoint: false,
    orderPlacedDateTime: placed,
    shipmentDetails: { ...SHIPMENT_DETAILS, ...opts.shipmentDetails },
    billingDetails: { ...SHIPMENT_DETAILS, orderReference: 'PO-7731' },
    orderItems: spec.lines.map((l, i) => {
      const before = opts.existing?.orderItems[i];
      const o = opts.lines?.[i] ?? {};
      return {
        orderItemId: `${spec.id.slice(1)}${String(i + 1).padStart(2, '0')}`,
        cancellationRequest: o.cancellationRequest ?? false,
        fulfilment: {
          method: o.fbb ? 'FBB' : 'FBR',
          distributionParty: o.fbb ? 'BOL' : 'RETAILER',
          latestDeliveryDate: placed.slice(0, 10),
          expiryDate: placed.slice(0, 10),
          timeFrameType: 'REGULAR',
        },
        offer: { offerId: randomUUID(), ...(l.sku === null ? {} : { reference: l.sku }) },
        product: { ean: `87${String(1_000_000_000 + i).padStart(11, '0')}`, title: `Poster ${i + 1}` },
        quantity: l.quantity,
        quantityShipped: before?.quantityShipped ?? 0,
        quantityCancelled: spec.cancelled ? l.quantity : 0,
        unitPrice: 24.95,
        totalPrice: 24.95 * l.quantity,
        discounts: [],
        commission: 3.1,
        latestChangedDateTime: at,
      };
    }),
    ...(spec.paid ? {} : { hidden: true }),
  };
}
