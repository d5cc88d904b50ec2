import { expect } from 'chai';
import { connectorConformance } from '@print-api/connector-kit/testing';
import { magentoConnector } from '../src/index.ts';
import { FakeMagento, takeContractViolations } from './fake-magento.ts';

connectorConformance({ connector: magentoConnector, fakePlatform: () => new FakeMagento() });

// Every call the connector made kept to Magento's admin REST schema and Adobe's search rules.
afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
