import { connectorConformance } from '@print-api/connector-kit/testing';
import { wixConnector } from '../src/index.ts';
import { FakeWix } from './fake-wix.ts';

connectorConformance({ connector: wixConnector, fakePlatform: () => new FakeWix() });
