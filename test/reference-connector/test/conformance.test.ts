import { connectorConformance } from '@print-api/connector-kit/testing';
import { referenceConnector } from '../src/index.ts';
import { FakeReferencePlatform } from './fake-reference-platform.ts';

// The proof that a third party can: a connector in its own folder, its fake beside it, the kit's suite.
connectorConformance({ connector: referenceConnector, fakePlatform: () => new FakeReferencePlatform() });
