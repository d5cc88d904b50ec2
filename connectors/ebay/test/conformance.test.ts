import { connectorConformance } from '@print-api/connector-kit/testing';
import { ebayConnector } from '../src/index.ts';
import { FakeEbayPlatform } from './fake-ebay-platform.ts';

connectorConformance({ connector: ebayConnector, fakePlatform: () => new FakeEbayPlatform() });
