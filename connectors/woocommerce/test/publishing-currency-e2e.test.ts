import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import { wooCommerceConnector } from '../src/index.ts';
import { FakeWooStore, takeContractViolations } from './fake-woo-store.ts';
import { connectWooStore } from './woo-fixtures.ts';
import {
  connectorE2eService,
  eventually,
  posterReseller,
  POSTER_SKU as SKU,
  startHttpsServer,
  type TestHttpsServer,
  type TestService,
} from '@print-api/core/testing';

const PUBLIC_URL = 'https://print-api.example.com';
/** A day's rates, as the ECB's eurofxref-daily.xml writes them. */
const RATE_DATE = new Date(Date.now() - 24 * 60 * 60_000).toISOString().slice(0, 10);
const ECB_FILE = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<gesmes:subject>Reference rates</gesmes:subject>
	<gesmes:Sender>
		<gesmes:name>European Central Bank</gesmes:name>
	</gesmes:Sender>
	<Cube>
		<Cube time='${RATE_DATE}'>
			<Cube currency='USD' rate='1.0412'/>
			<Cube currency='GBP' rate='0.83455'/>
			<Cube currency='SEK' rate='11.4905'/>
		</Cube>
	</Cube>
</gesmes:Envelope>
`;

/**
 * The acceptance of issue 41's currencies: a GBP WooCommerce store gets its price in GBP, and the listing's margin in
 * GBP at the ECB rate of the day it names (the worker fetched the ECB's daily file from a real local HTTPS server).
 */
describe('Publishing to a WooCommerce store selling in GBP, its margin at the ECB rate (real PostgreSQL + Redis)', function () {
  afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
  this.timeout(30_000);
  let t: TestService;
  let files: TestHttpsServer;
  let ecb: TestHttpsServer;
  let key: string;

  before(async () => {
    ecb = await startHttpsServer();
    ecb.route('/stats/eurofxref/eurofxref-daily.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(ECB_FILE);
    });
  });
  after(async () => ecb?.close());

  connectorE2eService(
    PUBLIC_URL,
    { connectors: [wooCommerceConnector] },
    (started) => ({ t, files } = started),
    // The worker fetches it once at start-up (the maintenance round), then once a day.
    {
      get ECB_RATES_URL() {
        return `${ecb.url}/stats/eurofxref/eurofxref-daily.xml`;
      },
    } as unknown as Record<string, string>,
  );

  const connect = async (host: string, currency: string, country: string) => {
    const shop = new FakeWooStore({ host, ourBaseUrl: t.baseUrl, publicUrl: PUBLIC_URL });
    shop.currency = currency;
    shop.defaultCountry = country;
    return { shop, storeId: await connectWooStore(t, key, shop) };
  };
  const quoteEuroCents = async (country: string) => {
    const quote = await t.api(key, 'POST', '/quotes', { lines: [{ resellerSku: SKU, quantity: 1 }], country });
    expect(quote.status, JSON.stringify(quote.body)).to.equal(200);
    return quote.body.data.totals.totalCents as number;
  };

  before(async () => {
    key = (await posterReseller(t, files)).key;
    await eventually(
      async () => (await t.service.db.selectFrom('exchange_rates').selectAll().execute()).length === 3,
      "the ECB's rates, fetched by the worker",
    );
  });

  it("takes the price in GBP and answers the margin in GBP at the ECB's rate of the day it names", async () => {
    const { shop, storeId } = await connect('gbp-shop.example.com', 'GBP', 'GB');
    const res = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: SKU,
      title: 'Tulips, A2 poster',
      priceCents: 2495,
      currency: 'GBP',
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const listing = res.body.data;
    expect(listing).to.include({ currency: 'GBP', priceCents: 2495 });
    expect(shop.products.get(Number(listing.externalProductId))).to.deep.include({ regular_price: '24.95' });

    const eur = await quoteEuroCents('GB');
    const cost = new Decimal(eur).div(100).mul('0.83455').toDecimalPlaces(2, Decimal.ROUND_HALF_UP).mul(100).toNumber();
    const margin = {
      currency: 'GBP',
      retailCents: 2495,
      costCents: cost,
      marginCents: 2495 - cost,
      country: 'GB',
      rate: { base: 'EUR', quote: 'GBP', value: '0.83455', date: RATE_DATE, source: 'ECB', stale: false },
      notice: null,
    };
    expect(listing.margin).to.deep.equal(margin);
    const read = await t.api(key, 'GET', `/stores/${storeId}/listings/${listing.id}`);
    expect(read.status).to.equal(200);
    expect(read.body.data.margin).to.deep.equal(margin);
    // The store says what it sells in.
    expect((await t.api(key, 'GET', `/stores/${storeId}`)).body.data).to.include({ currency: 'GBP', country: 'GB' });
  });

  it('answers a negative margin as it is, never refusing the publish for it', async () => {
    const { storeId } = await connect('cheap-sek-shop.example.com', 'SEK', 'SE');
    const res = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: SKU,
      title: 'Tulips, cheap',
      priceCents: 100,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.margin.marginCents).to.be.below(0);
    expect(res.body.data.margin.rate).to.include({ quote: 'SEK', value: '11.4905', date: RATE_DATE });
  });

  it('says the margin cannot be converted where the ECB gave no rate for the currency, making none up', async () => {
    const { storeId } = await connect('chf-shop.example.com', 'CHF', 'CH');
    const res = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: SKU,
      title: 'Tulips in francs',
      priceCents: 2995,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.margin).to.deep.equal({
      currency: 'CHF',
      retailCents: 2995,
      costCents: null,
      marginCents: null,
      country: 'CH',
      rate: null,
      notice: 'No ECB reference rate for CHF is known yet: the margin cannot be converted to CHF.',
    });
  });

  it('answers EUR stores their margin without a rate', async () => {
    const { storeId } = await connect('eur-shop.example.com', 'EUR', 'NL');
    const res = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: SKU,
      title: 'Tulips in euros',
      priceCents: 3995,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const eur = await quoteEuroCents('NL');
    expect(res.body.data.margin).to.deep.include({ costCents: eur, marginCents: 3995 - eur, rate: null });
    // Fetched once, not at every maintenance round.
    expect(ecb.hits('/stats/eurofxref/eurofxref-daily.xml')).to.equal(1);
  });
});
