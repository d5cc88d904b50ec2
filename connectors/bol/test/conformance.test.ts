import assert from 'node:assert/strict';
import { connectorConformance } from '@print-api/connector-kit/testing';
import { bolConnector } from '../src/index.ts';
import { FakeBolPlatform } from './fake-bol-platform.ts';

const fake = new FakeBolPlatform();
connectorConformance({ connector: bolConnector, fakePlatform: () => fake });
// Every call the connector made in the shared scenarios kept to bol's published contract.
after(() => assert.deepEqual(fake.bol.contractLog.violations, []));
