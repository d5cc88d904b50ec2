import { connectorConformance } from '@print-api/connector-kit/testing';
import { wooCommerceConnector } from '../src/index.ts';
import { FakeWooCommerce } from './fake-woocommerce.ts';

connectorConformance({ connector: wooCommerceConnector, fakePlatform: () => new FakeWooCommerce() });
