import assert from 'node:assert/strict';
import { connectorConformance } from '@print-api/connector-kit/testing';
import { wixConnector } from '../src/index.ts';
import { FakeWix, takeContractViolations } from './fake-wix.ts';

connectorConformance({ connector: wixConnector, fakePlatform: () => new FakeWix() });

// Every call the connector made (and every order the fake answered or sent) kept to the official SDK packages'
// contract.
afterEach(() => assert.deepEqual(takeContractViolations(), []));
