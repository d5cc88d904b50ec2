import { expect } from 'chai';
import { ConnectorError } from '@print-api/connector-kit';
import { httpAnswer } from '../../src/http/error-catalogue.ts';
import { Refusal } from '../../src/kernel/refusal.ts';
import { PermanentJobError, RetryLaterError } from '../../src/infra/queue/job-queue.ts';
import { SafeFetchError } from '../../src/infra/safe-fetch/safe-fetch-error.ts';
import {
  answeringFor,
  connectorRefusal,
  jobErrorFor,
  retryDelayFor,
} from '../../src/modules/stores/connect/connector-errors.ts';

const blocked = () =>
  new ConnectorError('invalid_payload', 'GET 10.1.2.3: 10.1.2.3 is not a public internet address', {
    cause: new SafeFetchError('address_blocked', 'blocked', { url: 'https://10.1.2.3/wp-json/' }),
  });

describe("a connector's typed failures, as the API and the queues see them", () => {
  describe('connectorRefusal: one mapping for every request that waits on a platform (statuses from the catalogue)', () => {
    const cases: Array<[ConnectorError, 'credentials' | 'install', number, string]> = [
      [new ConnectorError('auth', 'refused our credentials (401)'), 'credentials', 422, 'store_credentials_rejected'],
      [new ConnectorError('auth', 'the platform echoed another state'), 'install', 422, 'store_install_rejected'],
      [new ConnectorError('invalid_payload', 'not a store'), 'credentials', 422, 'store_not_connectable'],
      [new ConnectorError('invalid_payload', 'not a shop domain'), 'install', 422, 'store_not_connectable'],
      [new ConnectorError('upstream_unavailable', 'answered 503'), 'credentials', 502, 'store_unreachable'],
      [new ConnectorError('upstream_unavailable', 'timed out'), 'install', 502, 'store_unreachable'],
      [
        new ConnectorError('rate_limited', 'rate limit reached', { retryAfterMs: 2500 }),
        'credentials',
        503,
        'store_rate_limited',
      ],
    ];
    for (const [err, flow, status, code] of cases) {
      it(`answers ${err.kind} during ${flow === 'install' ? 'an install' : 'a connection'} with ${status} ${code}, quoting the platform`, () => {
        const api = connectorRefusal('Acme', err, flow);
        expect(api).to.include({ code });
        expect(httpAnswer(api).status).to.equal(status);
        expect(api.message).to.contain(`Acme said: ${err.message}`);
      });
    }

    it("answers a failure about our own set-up (a CONNECTOR_ variable) in a merchant's words, logging the variable for the operator", () => {
      const warned: Array<{ message: string; meta?: Record<string, unknown> }> = [];
      const logger = {
        info: () => undefined,
        error: () => undefined,
        warn: (message: string, meta?: Record<string, unknown>) =>
          void warned.push({ message, ...(meta ? { meta } : {}) }),
      };
      const notSetUp = new ConnectorError(
        'auth',
        'The Shopify app is not configured: set CONNECTOR_SHOPIFY_API_KEY and CONNECTOR_SHOPIFY_API_SECRET.',
      );
      const install = connectorRefusal('Shopify', notSetUp, 'install', logger);
      expect(install).to.include({ code: 'store_install_rejected' });
      expect(httpAnswer(install).status).to.equal(422);
      expect(install.message).to.equal(
        "Shopify stores cannot be connected here at the moment: this service's Shopify set-up is incomplete, and its operator has the details. Try again later.",
      );
      expect(install.message).not.to.contain('CONNECTOR_').and.not.to.contain('said');
      const connect = connectorRefusal(
        'Amazon',
        new ConnectorError(
          'invalid_payload',
          'Amazon is not set up on this server: set CONNECTOR_AMAZON_LWA_CLIENT_ID and CONNECTOR_AMAZON_LWA_CLIENT_SECRET',
        ),
        'credentials',
        logger,
      );
      // The catalogue's status for store_unreachable (502), as for an unreachable platform.
      expect(connect).to.include({ code: 'store_unreachable' });
      expect(httpAnswer(connect).status).to.equal(502);
      expect(connect.message).not.to.contain('CONNECTOR_');
      expect(warned.map((w) => w.message)).to.deep.equal([
        `Shopify: ${notSetUp.message}`,
        'Amazon: Amazon is not set up on this server: set CONNECTOR_AMAZON_LWA_CLIENT_ID and CONNECTOR_AMAZON_LWA_CLIENT_SECRET',
      ]);
    });

    it('tells a rate-limited caller when to come back (Retry-After, whole seconds)', () => {
      expect(
        httpAnswer(connectorRefusal('Acme', new ConnectorError('rate_limited', 'slow down', { retryAfterMs: 2500 })))
          .headers,
      ).to.deep.equal({ 'Retry-After': '3' });
      expect(
        httpAnswer(connectorRefusal('Acme', new ConnectorError('rate_limited', 'slow down'))).headers,
      ).to.deep.equal({
        'Retry-After': '2',
      });
    });

    it('answers an address that is not public with 422 store_not_connectable in both flows, naming the host only', () => {
      for (const flow of ['credentials', 'install'] as const) {
        const api = connectorRefusal('WooCommerce', blocked(), flow);
        expect(api).to.include({ code: 'store_not_connectable' });
        expect(httpAnswer(api).status).to.equal(422);
        expect(api.message).to.match(
          /^The store address is not public: 10\.1\.2\.3 is a local, private or reserved address/,
        );
      }
    });

    it('turns only typed failures into API errors (answeringFor)', async () => {
      const refused = await answeringFor('Acme', 'install', () =>
        Promise.reject(new ConnectorError('auth', 'no')),
      ).catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(Refusal).and.include({ code: 'store_install_rejected' });
      const bug = new TypeError('a bug');
      expect(await answeringFor('Acme', 'credentials', () => Promise.reject(bug)).catch((e: unknown) => e)).to.equal(
        bug,
      );
      expect(await answeringFor('Acme', 'credentials', async () => 'ok')).to.equal('ok');
    });
  });

  describe('jobErrorFor: what a job does about it', () => {
    it('waits out a rate limit without spending an attempt, for as long as the platform asked', () => {
      const waited = jobErrorFor('Acme', new ConnectorError('rate_limited', 'slow down', { retryAfterMs: 4000 }));
      expect(waited).to.be.instanceOf(RetryLaterError).and.include({ retryAfterMs: 4000 });
      expect(jobErrorFor('Acme', new ConnectorError('rate_limited', 'slow down'))).to.include({ retryAfterMs: 2000 });
    });

    it('gives up on refused credentials and payloads it cannot use', () => {
      for (const kind of ['auth', 'invalid_payload'] as const) {
        const given = jobErrorFor('Acme', new ConnectorError(kind, 'no'));
        expect(given, kind).to.be.instanceOf(PermanentJobError);
        expect((given as Error).message).to.equal('Acme: no');
      }
    });

    it('retries an unavailable platform and anything else with the queue backoff (the error as it is)', () => {
      const down = new ConnectorError('upstream_unavailable', 'answered 502');
      expect(jobErrorFor('Acme', down)).to.equal(down);
      const other = new Error('connection terminated');
      expect(jobErrorFor('Acme', other)).to.equal(other);
    });

    it('retries a failed webhook of a batch after what the platform or the call budget asked for, else a second', () => {
      expect(retryDelayFor(new ConnectorError('rate_limited', 'slow', { retryAfterMs: 7000 }))).to.equal(7000);
      expect(retryDelayFor(new RetryLaterError('budget spent', 1234))).to.equal(1234);
      expect(retryDelayFor(new Error('boom'))).to.equal(1000);
    });
  });
});
