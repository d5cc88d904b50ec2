import { expect } from 'chai';
import { connectorConformance } from '@print-api/connector-kit/testing';
import { shopifyConnector } from '../src/index.ts';
import { FakeShopify } from './fake-shopify.ts';
import { takeContractViolations } from './fake-shopify-store.ts';

connectorConformance({ connector: shopifyConnector, fakePlatform: () => new FakeShopify() });

// Every GraphQL request the connector sent (and every answer of the fake) kept to the Admin API schema.
afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
