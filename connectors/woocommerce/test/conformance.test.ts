import { expect } from 'chai';
import { connectorConformance } from '@print-api/connector-kit/testing';
import { wooCommerceConnector } from '../src/index.ts';
import { FakeWooCommerce } from './fake-woocommerce.ts';
import { takeContractViolations } from './fake-woo-store.ts';

connectorConformance({ connector: wooCommerceConnector, fakePlatform: () => new FakeWooCommerce() });

// Every call the connector made (and every order and webhook the fake answered) kept to WooCommerce's REST contract.
afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
