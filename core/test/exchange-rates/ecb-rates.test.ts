import { expect } from 'chai';
import { silentLogger } from '../../src/infra/logger.ts';
import { createSafeFetch } from '../../src/infra/safe-fetch/safe-fetch.ts';
import { EcbFileError, parseEcbDailyFile } from '../../src/modules/exchange-rates/ecb-daily-file.ts';
import { ExchangeRates } from '../../src/modules/exchange-rates/exchange-rates.ts';
import { startHttpsServer, type TestHttpsServer } from '../helpers/https-server.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const file = (date: string, cubes: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><gesmes:subject>Reference rates</gesmes:subject><Cube><Cube time="${date}">${cubes}</Cube></Cube></gesmes:Envelope>`;

describe("The ECB's daily file: its rates read exactly, or not at all", () => {
  it('reads the day and every currency with its rate as written', () => {
    const parsed = parseEcbDailyFile(
      file('2026-11-27', `<Cube currency='GBP' rate='0.83455'/><Cube currency="HUF" rate="384.10"/>`),
    );
    expect(parsed.date).to.equal('2026-11-27');
    expect([...parsed.rates]).to.deep.equal([
      ['GBP', '0.83455'],
      ['HUF', '384.10'],
    ]);
  });

  for (const [what, xml] of [
    ['no day', '<Cube><Cube currency="GBP" rate="0.8"/></Cube>'],
    ['a day that does not exist', file('2026-02-30', '<Cube currency="GBP" rate="0.8"/>')],
    ['no rate', file('2026-11-27', '')],
    ['a rate that is not a number', file('2026-11-27', '<Cube currency="GBP" rate="0,8"/>')],
    ['a zero rate', file('2026-11-27', '<Cube currency="GBP" rate="0.0000"/>')],
    ['a currency that is not one', file('2026-11-27', '<Cube currency="gbp" rate="0.8"/>')],
    ['an HTML error page', '<html><body>Service unavailable</body></html>'],
  ] as const)
    it(`refuses a file with ${what}`, () => {
      expect(() => parseEcbDailyFile(xml)).to.throw(EcbFileError);
    });
});

describe('ECB reference rates: fetched once a day through the outbound guard, kept with their date (PGlite)', function () {
  let t: TestService;
  let ecb: TestHttpsServer;
  let body = file('2026-11-20', `<Cube currency='GBP' rate='0.8400'/><Cube currency='JPY' rate='160.12'/>`);
  let now = new Date('2026-11-23T10:00:00Z');
  let rates: ExchangeRates;

  before(async function () {
    t = await startTestService(this, 'pglite');
    ecb = await startHttpsServer();
    ecb.route('/eurofxref-daily.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(body);
    });
    rates = new ExchangeRates({
      db: t.service.db,
      safeFetch: createSafeFetch({ allowedHosts: ['localhost'], ca: [ecb.ca], userAgent: 'print-api-tests/1.0' }),
      logger: silentLogger(),
      url: `${ecb.url}/eurofxref-daily.xml`,
      clock: () => now,
    });
  });
  after(async () => {
    await t?.close();
    await ecb?.close();
  });

  it('knows no rate before the first fetch, and converts nothing but euros', async () => {
    expect(await rates.latest('GBP')).to.equal(null);
    expect(await rates.fromEuroCents(1234, 'GBP')).to.deep.equal({
      ok: false,
      reason: 'No ECB reference rate for GBP is known yet: the margin cannot be converted to GBP.',
    });
    expect(await rates.fromEuroCents(1234, 'EUR')).to.deep.equal({ ok: true, minorUnits: 1234, rate: null });
  });

  it('fetches the file once a day, and converts at the newest rate (half up, in the minor units of the currency)', async () => {
    await rates.refreshDaily();
    await rates.refreshDaily();
    expect(ecb.hits('/eurofxref-daily.xml')).to.equal(1);
    expect(await rates.fromEuroCents(1001, 'GBP')).to.deep.include({ ok: true, minorUnits: 841 });
    // JPY has no minor unit: 10.01 EUR x 160.12 = 1602.8012 -> 1603.
    expect(await rates.fromEuroCents(1001, 'JPY')).to.deep.include({ ok: true, minorUnits: 1603 });
    expect(await rates.latest('GBP')).to.deep.equal({
      base: 'EUR',
      quote: 'GBP',
      value: '0.8400',
      date: '2026-11-20',
      source: 'ECB',
      stale: false,
    });
  });

  it('shows a rate set more than 4 days ago as stale, and takes the next day’s file a day later', async () => {
    now = new Date('2026-11-25T10:00:00Z');
    expect((await rates.latest('GBP'))?.stale).to.equal(true);
    body = file('2026-11-24', `<Cube currency='GBP' rate='0.8300'/>`);
    await rates.refreshDaily();
    expect(ecb.hits('/eurofxref-daily.xml')).to.equal(2);
    expect(await rates.latest('GBP')).to.include({ value: '0.8300', date: '2026-11-24', stale: false });
    // The JPY rate of the day before stays what it was: no rate is carried over to a day it was not set.
    expect(await rates.latest('JPY')).to.include({ value: '160.12', date: '2026-11-20', stale: true });
  });

  it('keeps nothing from a file it cannot read, and tries again no sooner than an hour later', async () => {
    now = new Date('2026-11-26T11:00:00Z');
    body = '<html>maintenance</html>';
    await rates.refreshDaily().then(
      () => expect.fail('a file without rates is refused'),
      (err: Error) => expect(err).to.be.instanceOf(EcbFileError),
    );
    await rates.refreshDaily();
    expect(ecb.hits('/eurofxref-daily.xml')).to.equal(3);
    expect(await rates.latest('GBP')).to.include({ value: '0.8300', date: '2026-11-24' });
    now = new Date('2026-11-26T12:01:00Z');
    body = file('2026-11-26', `<Cube currency='GBP' rate='0.8350'/>`);
    await rates.refreshDaily();
    expect(await rates.latest('GBP')).to.include({ value: '0.8350', date: '2026-11-26' });
  });
});
