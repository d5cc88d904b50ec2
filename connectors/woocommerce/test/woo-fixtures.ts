import { expect } from 'chai';
import nock from 'nock';
import { ConnectorError } from '@print-api/connector-kit';
import type { ConnectorContext, InboundWebhook, StoreConnection } from '@print-api/connector-kit';
import type { SignedWebhook } from '@print-api/connector-kit/testing';
import { nockedConnectorHttp, type TestService } from '@print-api/core/testing';
import type { WooCredentials } from '../src/config.ts';
import type { FakeWooStore } from './fake-woo-store.ts';
import order from './fixtures/order.json' with { type: 'json' };

export const STORE_URL = 'https://shop.example.com';
export const PUBLIC_URL = 'https://api.example.com';
export const CREDENTIALS: WooCredentials = {
  storeUrl: STORE_URL,
  consumerKey: 'ck_4b3f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a49',
  consumerSecret: 'cs_0a1b2c3d4e5f60718293a4b5c6d7e8f901234567',
};

export type WooOrderJson = typeof order;

/** The documented order (a paid `processing` checkout order), with top-level fields replaced. */
export function wooOrder(patch: Partial<Record<keyof WooOrderJson, unknown>> = {}): WooOrderJson {
  return { ...structuredClone(order), ...patch } as WooOrderJson;
}

/** The same order before payment: `pending`, no `date_paid`. */
export function unpaidOrder(patch: Partial<Record<keyof WooOrderJson, unknown>> = {}): WooOrderJson {
  return wooOrder({ status: 'pending', date_paid: null, date_paid_gmt: null, needs_payment: true, ...patch });
}

/** Sets both modification dates (site time is GMT+2 in the fixture's store). */
export function modifiedAt(o: WooOrderJson, gmt: string): WooOrderJson {
  const local = new Date(new Date(`${gmt}Z`).getTime() + 2 * 3600_000).toISOString().slice(0, 19);
  return { ...o, date_modified_gmt: gmt, date_modified: local };
}

export interface TestLogs {
  info: string[];
  warn: string[];
}

/** A connector context as core builds it: core's HTTP client (which nock intercepts), a recording logger. */
export function testContext(now: () => Date = () => new Date()): ConnectorContext & { logs: TestLogs } {
  const logs: TestLogs = { info: [], warn: [] };
  return {
    http: nockedConnectorHttp(),
    logger: {
      info: (m) => void logs.info.push(m),
      warn: (m) => void logs.warn.push(m),
      error: (m) => void logs.warn.push(m),
    },
    clock: now,
    publicUrl: PUBLIC_URL,
    settings: {},
    webhookUrl: (storeId) => `${PUBLIC_URL}/connectors/woocommerce/webhooks${storeId ? `/${storeId}` : ''}`,
    logs,
  };
}

export function testStore(webhookSecret?: string): StoreConnection<WooCredentials> {
  return { externalId: STORE_URL, name: 'Tulip Prints', credentials: CREDENTIALS, webhookSecret };
}

/** A signed delivery as core hands it to the connector (header names lower-cased by Node). */
export function inbound(
  signed: SignedWebhook | { headers: Record<string, string>; body: string },
  path = 'sto_test',
): InboundWebhook {
  return { headers: { ...signed.headers }, rawBody: Buffer.from(signed.body, 'utf8'), path, query: {} };
}

/** Mocha hooks: no real network except loopback; every interceptor must have been used. */
export function useNock(): void {
  before(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  });
  afterEach(function () {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    if (this.currentTest?.state === 'passed' && pending.length > 0)
      throw new Error(`unused store interceptors: ${pending.join(', ')}`);
  });
  after(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
}

export const store = (): nock.Scope => nock(STORE_URL);

/** The ConnectorError a promise rejects with (fails when it resolves or rejects otherwise). */
export async function rejection(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(ConnectorError);
    return err as ConnectorError;
  }
  throw new Error('expected a ConnectorError');
}

/** Connects `shop` with its REST keys for the reseller `key` (`POST /stores`, which must answer 201): the store's id. */
export async function connectWooStore(t: Pick<TestService, 'api'>, key: string, shop: FakeWooStore): Promise<string> {
  const res = await t.api(key, 'POST', '/stores', {
    platform: 'WOOCOMMERCE',
    storeUrl: shop.url,
    consumerKey: shop.consumerKey,
    consumerSecret: shop.consumerSecret,
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.data.id as string;
}
