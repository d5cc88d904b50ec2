import { expect } from 'chai';
import { connectorConformance } from '@print-api/connector-kit/testing';
import { shopwareConnector } from '../src/index.ts';
import { FakeShopware } from './fake-shopware.ts';
import { takeContractViolations } from './shopware-contract.ts';

connectorConformance({ connector: shopwareConnector, fakePlatform: () => new FakeShopware() });

// Every call the connector made kept to Shopware's Admin API contract.
afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
