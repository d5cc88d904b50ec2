import { connectorConformance } from '@print-api/connector-kit/testing';
import { amazonConnector } from '../src/index.ts';
import { FakeAmazonPlatform } from './fake-amazon-store.ts';

connectorConformance({ connector: amazonConnector, fakePlatform: () => new FakeAmazonPlatform() });
