import { connectorConformance } from '@print-api/connector-kit/testing';
import { etsyConnector } from '../src/index.ts';
import { EtsyPlatform } from './etsy-platform.ts';

connectorConformance({ connector: etsyConnector, fakePlatform: () => new EtsyPlatform() });
