import { connectorConformance } from '@print-api/connector-kit/testing';
import { tiktokShopConnector } from '../src/index.ts';
import { FakeTikTokShop } from './fake-tiktok-shop.ts';

connectorConformance({ connector: tiktokShopConnector, fakePlatform: () => new FakeTikTokShop() });
