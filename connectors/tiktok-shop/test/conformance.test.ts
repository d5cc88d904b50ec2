import { connectorConformance } from '@print-api/connector-kit/testing';
import { tiktokShopConnector } from '../src/index.ts';
import { FakeTikTokShop } from './fake-tiktok-shop-store.ts';

connectorConformance({ connector: tiktokShopConnector, fakePlatform: () => new FakeTikTokShop() });
