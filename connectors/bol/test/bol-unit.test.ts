import { expect } from 'chai';
import { ConnectorError, type HttpRequest } from '@print-api/connector-kit';
import { scaled } from '@print-api/core/testing';
import type { BolContext } from '../src/bol-client.ts';
import { BolApi, issueToken } from '../src/bol-client.ts';
import { settingsSchema } from '../src/config.ts';
import { belgianProvince, orderSchema, streetLine, toStoreOrder } from '../src/order-mapper.ts';
import { bolDay } from '../src/order-polling.ts';
import { pushShipment, transporterCode } from '../src/shipment-push.ts';
import { bolOrderId, bolOrderOf, FakeBol, type FakeBolSeller } from './fake-bol.ts';

/**
 * A connector context whose HTTP client hands each request straight to the fake bol (its checks and contract
 * included), and whose clock the test moves.
 */
function context(bol: FakeBol, clock: { now: number }): BolContext {
  return {
    http: {
      async request(req: HttpRequest) {
        const [status, body, headers = {}] = await bol.answer(
          new Request(req.url, {
            method: req.method,
            headers: req.headers ?? {},
            ...(req.body !== undefined ? { body: req.body } : {}),
          }),
        );
        const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
        return { status, headers: lower, body: typeof body === 'string' ? body : JSON.stringify(body ?? '') };
      },
      download: async (req) => Promise.reject(new Error(`no downloads in this test: ${req.url}`)),
    },
    logger: { info() {}, warn() {}, error() {} },
    clock: () => new Date(clock.now),
    publicUrl: 'https://print-api.example.com',
    settings: settingsSchema.parse({ loginUrl: 'https://login.bol.test', apiUrl: 'https://api.bol.test' }),
    webhookUrl: () => 'https://print-api.example.com/connectors/bol/webhooks',
  };
}

describe('bol connector (unit: the mapping rules, and pushes against the fake bol in process)', () => {
  it('writes the street line as Dutch and Belgian carriers print it, with or without an extension', () => {
    expect(streetLine({ streetName: 'Kerkstraat', houseNumber: '12', houseNumberExtension: 'A' })).to.equal(
      'Kerkstraat 12 A',
    );
    expect(streetLine({ streetName: ' Utrechtseweg ', houseNumber: '99', houseNumberExtension: ' ' })).to.equal(
      'Utrechtseweg 99',
    );
    expect(streetLine({ streetName: 'Dorpsstraat', houseNumber: '3' })).to.equal('Dorpsstraat 3');
  });

  it("derives a Belgian address's province from its postcode (bol sends none) and none for other countries", () => {
    expect(
      ['1000', '1348', '1500', '2000', '3000', '3500', '4000', '5000', '6000', '6700', '7000', '8000', '9000'].map(
        belgianProvince,
      ),
    ).to.deep.equal(['BRU', 'WBR', 'VBR', 'VAN', 'VBR', 'VLI', 'WLG', 'WNA', 'WHT', 'WLX', 'WHT', 'VWV', 'VOV']);
    expect(belgianProvince('0999')).to.equal(undefined);
    expect(belgianProvince('1234AB')).to.equal(undefined);
    const nl = toStoreOrder(
      orderSchema.parse(
        bolOrderOf(
          { id: bolOrderId(), paid: true, lines: [{ sku: 'X', quantity: 1 }] },
          { shipmentDetails: { countryCode: 'NL', zipCode: '1012AB', company: undefined } },
        ),
      ),
    );
    expect(nl.recipient).to.not.have.property('state');
    expect(nl.recipient).to.not.have.property('company');
  });

  it("maps our carriers to bol's transporter codes (PostNL is TNT at bol), by the recipient's country where bol has two", () => {
    expect(transporterCode('PostNL')).to.equal('TNT');
    expect(transporterCode('DHL')).to.equal('DHL');
    expect(transporterCode('DPD', 'BE')).to.equal('DPD-BE');
    expect(transporterCode('dpd', 'NL')).to.equal('DPD-NL');
    expect(transporterCode('bpost')).to.equal('BPOST_BE');
    expect(transporterCode('UPS')).to.equal('UPS');
    expect(transporterCode('Acme Couriers')).to.equal('OTHER');
  });

  it('marks an order bol ships itself as not for print, and one whose every line is withdrawn as cancelled', () => {
    const fbb = toStoreOrder(
      orderSchema.parse(
        bolOrderOf({ id: bolOrderId(), paid: true, lines: [{ sku: 'X', quantity: 1 }] }, { lines: [{ fbb: true }] }),
      ),
    );
    expect(fbb.notForPrint).to.match(/FBB/);
    expect(fbb.lines[0]!.sku).to.equal(null);
    const withdrawn = toStoreOrder(
      orderSchema.parse(
        bolOrderOf(
          {
            id: bolOrderId(),
            paid: true,
            lines: [
              { sku: 'X', quantity: 1 },
              { sku: 'Y', quantity: 1 },
            ],
          },
          { lines: [{ cancellationRequest: true }, { fbb: true }] },
        ),
      ),
    );
    expect(withdrawn.cancelled).to.equal(true);
    expect(withdrawn.paid).to.equal(true);
  });

  it("reads bol's calendar day in Amsterdam (latest-change-date)", () => {
    expect(bolDay(new Date('2026-06-30T22:30:00Z'))).to.equal('2026-07-01');
    expect(bolDay(new Date('2026-01-15T22:30:00Z'))).to.equal('2026-01-15');
  });

  describe('shipments', function () {
    // Following a process status waits for real between reads (250 ms, doubling).
    this.timeout(scaled(20_000));
    let bol: FakeBol;
    let seller: FakeBolSeller;
    const clock = { now: Date.now() };
    let ctx: BolContext;
    let api: BolApi;

    beforeEach(async () => {
      bol = new FakeBol();
      bol.url = 'https://api.bol.test';
      seller = bol.seller();
      ctx = context(bol, clock);
      api = new BolApi(ctx, await issueToken(ctx, seller, false));
    });
    afterEach(() => expect(bol.contractLog.violations).to.deep.equal([]));

    const shipment = (id: string) => ({
      externalOrderId: id,
      carrier: 'PostNL',
      trackingNumber: '3SABCD1234567',
      trackingUrl: 'https://jouw.postnl.nl/track-and-trace/3SABCD1234567-BE-2000',
      lines: [{ externalLineId: null, sku: 'POSTER-TULIPS', quantity: 2 }],
    });

    it('follows a shipment still PENDING when the wait ran out on the next attempt, never sending it twice', async () => {
      const id = bolOrderId();
      seller.save(bolOrderOf({ id, paid: true, lines: [{ sku: 'POSTER-TULIPS', quantity: 2 }] }));
      seller.pendingReads = 1_000;
      // Each process-status read finds the clock 20 s on: the minute's wait runs out after a few reads.
      const moving = { ...ctx, clock: () => new Date((clock.now += 20_000)) };
      const first = await pushShipment(moving, api, shipment(id)).catch((e: unknown) => e);
      expect(first).to.be.instanceOf(ConnectorError);
      expect((first as ConnectorError).kind).to.equal('upstream_unavailable');
      expect((first as ConnectorError).message).to.match(/still PENDING/);
      expect(seller.seen('createShipment')).to.have.length(1);

      for (const p of seller.processes.values()) p.pendingLeft = 0;
      await pushShipment(ctx, api, shipment(id));
      expect(seller.seen('createShipment')).to.have.length(1);
      expect(seller.seen('findProcessStatus').length).to.be.at.least(1);
      expect(seller.shipments).to.have.length(1);

      // Pushed again (a re-queued job): bol shows the items shipped, nothing is sent.
      await pushShipment(ctx, api, shipment(id));
      expect(seller.seen('createShipment')).to.have.length(1);
    });

    it("records a TIMEOUT with bol's reason, and refuses a shipment of a SKU the order does not hold", async () => {
      const id = bolOrderId();
      seller.save(bolOrderOf({ id, paid: true, lines: [{ sku: 'POSTER-TULIPS', quantity: 2 }] }));
      seller.pendingReads = 0;
      seller.shipmentOutcome = { status: 'TIMEOUT', errorMessage: 'The request timed out.' };
      const timedOut = await pushShipment(ctx, api, shipment(id)).catch((e: unknown) => e);
      expect((timedOut as ConnectorError).kind).to.equal('invalid_payload');
      expect((timedOut as ConnectorError).message).to.match(/ended TIMEOUT: The request timed out\./);
      const other = await pushShipment(ctx, api, {
        ...shipment(id),
        lines: [{ externalLineId: null, sku: 'MUG-DELFT', quantity: 1 }],
      }).catch((e: unknown) => e);
      expect((other as ConnectorError).message).to.match(/no open item with the reference MUG-DELFT/);
    });

    it('takes a new token once when bol refuses one before its time, and tells revoked credentials apart', async () => {
      const id = bolOrderId();
      seller.save(bolOrderOf({ id, paid: true, lines: [{ sku: 'POSTER-TULIPS', quantity: 2 }] }));
      const issued = seller.tokensIssued;
      seller.expireTokens();
      await pushShipment(ctx, api, shipment(id));
      expect(seller.tokensIssued).to.equal(issued + 1);
      seller.revoke();
      const revoked = await issueToken(ctx, seller, true).catch((e: unknown) => e);
      expect((revoked as ConnectorError).kind).to.equal('auth');
      expect((revoked as ConnectorError).revoked).to.equal(true);
      expect((revoked as ConnectorError).message).to.match(/deleted or renewed in the seller dashboard/);
    });
  });
});
