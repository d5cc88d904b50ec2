import { connectorConformance } from '@print-api/connector-kit/testing';
import { shopifyConnector } from '../src/index.ts';
import { FakeShopify } from './fake-shopify.ts';

connectorConformance({ connector: shopifyConnector, fakePlatform: () => new FakeShopify() });
