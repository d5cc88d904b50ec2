import { describeEachBackend } from '../helpers/test-service.ts';
import { deliveryCases } from './cases/delivery-cases.ts';
import { endpointCases } from './cases/endpoint-cases.ts';
import { endpointHealthCases } from './cases/endpoint-health-cases.ts';
import { orderEventsCases } from './cases/order-events-cases.ts';
import { volumeCases } from './cases/volume-cases.ts';
import { capturingLogger, FAST_WEBHOOKS } from './webhook-test-helpers.ts';

const captured = capturingLogger();

// One service per backend for all of these (starting an embedded database costs seconds).
describeEachBackend(
  'webhooks',
  (get, backend) => {
    describe('endpoints', () => endpointCases(get));
    describe('delivery', () => deliveryCases(get));
    describe('endpoint health', () => endpointHealthCases(get, captured.lines));
    describe('order events', () => orderEventsCases(get));
    describe('volume', () => volumeCases(get, backend));
  },
  // Its tests poll the API for deliveries while the queue works: on a busy machine a wait outlasts
  // a key's 120 requests a minute (the rate limit has tests of its own).
  { RATE_LIMIT_PER_MINUTE: '100000' },
  { ...FAST_WEBHOOKS, logger: captured.logger },
);
