import {
  connectStore,
  firstPollOf,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeStore,
} from '@print-api/connector-kit/testing';
import { bolOrderId, bolOrderOf, FakeBol, problem, type FakeBolSeller } from './fake-bol.ts';

/** The kit's conformance suite's view of bol: sellers connected with pasted API credentials, polled through sync. */
export class FakeBolPlatform implements FakePlatform {
  readonly platform = 'BOL';
  readonly expiringTokens = true;
  readonly shipsTo = {
    name: 'Ans Peeters',
    company: 'Drukkerij Peeters BV',
    address1: 'Kerkstraat 12 A',
    address2: 'Achterdeur',
    postalCode: '2000',
    city: 'Antwerpen',
    state: 'VAN',
    country: 'BE',
  };
  readonly bol = new FakeBol();

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.bol.serve(server);
    return this.bol.settings();
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    const seller = this.bol.seller();
    const storeId = await connectSeller(service, key, seller);
    return bolStore(seller, storeId);
  }
}

/** `POST /stores` with the seller's API credentials; the store's id once its first poll ran. */
export async function connectSeller(service: ConformanceService, key: string, seller: FakeBolSeller) {
  const storeId = await connectStore(service, key, {
    platform: 'BOL',
    clientId: seller.clientId,
    clientSecret: seller.clientSecret,
  });
  await firstPollOf(service, key, storeId);
  return storeId;
}

function bolStore(seller: FakeBolSeller, storeId: string): FakeStore {
  return {
    storeId,
    nextOrderId: bolOrderId,
    saveOrder(spec) {
      const id = spec.id ?? bolOrderId();
      seller.save(bolOrderOf({ ...spec, id }, { existing: seller.orders.get(id) }));
      return id;
    },
    async deliver() {
      throw new Error('bol orders are polled');
    },
    pushedTracking: (orderId) =>
      seller.shipments
        .filter((s) => s.orderId === orderId)
        .map((s) => ({ trackingNumber: String(s.transport.trackAndTrace) })),
    rateLimitNextPush(retryAfterSeconds) {
      seller.faultNext(
        'createShipment',
        problem(429, 'Too Many Requests', 'Too many requests, retry later.', [], {
          'Retry-After': String(retryAfterSeconds),
        }),
      );
      return () => seller.seen('createShipment').map((c) => c.at);
    },
    expireTokens: () => seller.expireTokens(),
    tokenRefreshes: () => seller.tokensIssued,
    async uninstall() {
      seller.revoke();
      return 200;
    },
  };
}
