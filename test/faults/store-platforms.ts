import { randomBytes } from 'node:crypto';
import { FakeAmazon, MARKETPLACE, type FakeSeller } from '../../connectors/amazon/test/fake-amazon.ts';
import { amazonOrderId, amazonOrderOf } from '../../connectors/amazon/test/fake-amazon-store.ts';
import {
  APP as TIKTOK_APP,
  FakeTikTokShopPlatform,
  type FakeShop,
} from '../../connectors/tiktok-shop/test/fake-tiktok-shop.ts';
import { tiktokId } from '../../connectors/tiktok-shop/test/fake-tiktok-shop-operations.ts';
import { tiktokOrderOf } from '../../connectors/tiktok-shop/test/fake-tiktok-shop-store.ts';
import { webhookSignature } from '../../connectors/tiktok-shop/src/signing.ts';
import { SecretBox } from '../../core/src/infra/crypto.ts';
import { newId } from '../../core/src/infra/ids.ts';
import { query } from './guarantees.ts';
import { FaultyPlatform, type PlatformFault } from './platform-faults.ts';

/** The SKU every store order sells: the resellers' one product. */
export const STORE_SKU = 'POSTER-TULIPS';

/** A store order's platform and its id there. */
export interface PlatformOrder {
  platform: 'TIKTOK_SHOP' | 'AMAZON';
  id: string;
}

/**
 * The two simulated platforms of the store scenarios, in the test process: TikTok Shop, whose
 * signed notifications name an order the service must fetch, and Amazon, which sends nothing
 * and is polled. Each runs its repository fake (every call's signature and token checked)
 * behind a FaultyPlatform. The service's processes reach them through CONNECTOR_<PLATFORM>_*
 * (`env()`) and trust their CA through NODE_EXTRA_CA_CERTS (the fault suite's test CA).
 */
export class StorePlatforms {
  readonly tiktok = new FakeTikTokShopPlatform();
  readonly amazon = new FakeAmazon();
  readonly tiktokFront: FaultyPlatform;
  readonly amazonFront: FaultyPlatform;

  private constructor(tiktokFront: FaultyPlatform, amazonFront: FaultyPlatform) {
    this.tiktokFront = tiktokFront;
    this.amazonFront = amazonFront;
  }

  static async start(): Promise<StorePlatforms> {
    let platforms: StorePlatforms | undefined;
    const tiktokFront = await FaultyPlatform.start(
      (req) => platforms!.tiktok.answer(req),
      (method, path) => method === 'POST' && /^\/fulfillment\/202309\/orders\/\d+\/packages$/.test(path),
    );
    const amazonFront = await FaultyPlatform.start(
      (req) => platforms!.amazon.answer(req),
      (method, path) => method === 'POST' && /\/shipmentConfirmation$/.test(path),
    );
    platforms = new StorePlatforms(tiktokFront, amazonFront);
    platforms.tiktok.url = tiktokFront.url;
    platforms.amazon.url = amazonFront.url;
    return platforms;
  }

  /** The connectors' settings pointing at the fakes. */
  env(): Record<string, string> {
    return {
      CONNECTOR_TIKTOK_SHOP_APP_KEY: TIKTOK_APP.appKey,
      CONNECTOR_TIKTOK_SHOP_APP_SECRET: TIKTOK_APP.appSecret,
      CONNECTOR_TIKTOK_SHOP_SERVICE_ID: TIKTOK_APP.serviceId,
      CONNECTOR_TIKTOK_SHOP_API_URL: this.tiktokFront.url,
      CONNECTOR_TIKTOK_SHOP_AUTH_URL: `${this.tiktokFront.url}/auth-host`,
      ...this.amazon.settings(),
    };
  }

  /** Both platforms answer with `fault` (until `clear`). */
  inject(fault: PlatformFault): void {
    this.tiktokFront.inject(fault);
    this.amazonFront.inject(fault);
  }

  clear(): void {
    this.tiktokFront.clear();
    this.amazonFront.clear();
  }

  injected(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const front of [this.tiktokFront, this.amazonFront])
      for (const [k, n] of Object.entries(front.injected)) out[k] = (out[k] ?? 0) + n;
    return out;
  }

  async close(): Promise<void> {
    await this.tiktokFront.close();
    await this.amazonFront.close();
  }
}

/**
 * One reseller's two stores on the platforms: a TikTok shop and an Amazon seller, authorised
 * (tokens issued by the fakes, good for hours) and written into the scenario's database as a
 * completed connection leaves them, polled and synced just now so that no catch-up poll or
 * listings sync runs at start (as the bench seeds its stores).
 */
export class ResellerStores {
  readonly shop: FakeShop;
  readonly seller: FakeSeller;
  tiktokStoreId = '';
  amazonStoreId = '';
  readonly #platforms: StorePlatforms;

  constructor(platforms: StorePlatforms) {
    this.#platforms = platforms;
    this.shop = platforms.tiktok.addShop({ name: `Fault Prints ${randomBytes(2).toString('hex')}` });
    this.seller = platforms.amazon.seller();
  }

  async seed(databaseUrl: string, encryptionKey: string, resellerId: string): Promise<void> {
    const box = new SecretBox(encryptionKey);
    const tokens = this.#platforms.tiktok.issueToken([this.shop.id]);
    const day = 86400_000;
    this.tiktokStoreId = await insertStore(databaseUrl, box, resellerId, 'TIKTOK_SHOP', this.shop.id, {
      shopId: this.shop.id,
      shopCipher: this.shop.cipher,
      region: this.shop.region,
      accessToken: tokens.accessToken,
      accessTokenExpiresAt: new Date(Date.now() + 7 * day).toISOString(),
      refreshToken: tokens.refreshToken,
      refreshTokenExpiresAt: new Date(Date.now() + 365 * day).toISOString(),
      openId: '7010736057180325637',
      sellerName: 'Fault Prints',
    });
    const accessToken = `Atza|${randomBytes(24).toString('base64url')}`;
    this.seller.accessTokens.set(accessToken, Date.now() + day);
    this.amazonStoreId = await insertStore(databaseUrl, box, resellerId, 'AMAZON', this.seller.id, {
      sellingPartnerId: this.seller.id,
      refreshToken: this.seller.selfAuthorize(),
      accessToken,
      accessTokenExpiresAt: new Date(Date.now() + day).toISOString(),
      marketplaceIds: [MARKETPLACE],
      authorizedAt: new Date().toISOString(),
    });
  }

  /** A new TikTok order (one unit of STORE_SKU), paid or not yet. */
  newTikTokOrder(paid: boolean): PlatformOrder {
    const id = tiktokId();
    this.#platforms.tiktok.save(this.shop, tiktokOrderOf({ id, paid, lines: [{ sku: STORE_SKU, quantity: 1 }] }));
    return { platform: 'TIKTOK_SHOP', id };
  }

  /** The buyer pays a TikTok order later: it awaits shipment from now on (a newer update_time). */
  payTikTokOrder(id: string): void {
    this.#platforms.tiktok.save(this.shop, tiktokOrderOf({ id, paid: true, lines: [{ sku: STORE_SKU, quantity: 1 }] }));
  }

  /**
   * TikTok's ORDER_STATUS_CHANGE notification of the order as it is now (or as it was: `status`), signed with the app
   * secret.
   */
  tiktokNotification(id: string, status?: string): { body: string; headers: Record<string, string> } {
    const order = this.shop.orders.get(id)!;
    const body = JSON.stringify({
      type: 1,
      tts_notification_id: tiktokId(),
      shop_id: this.shop.id,
      timestamp: Math.floor(Date.now() / 1000),
      data: {
        is_on_hold_order: false,
        order_id: id,
        order_status: status ?? order.status,
        update_time: order.update_time,
      },
    });
    return {
      body,
      headers: {
        'content-type': 'application/json',
        authorization: webhookSignature(TIKTOK_APP.appKey, TIKTOK_APP.appSecret, body),
        'user-agent': 'TikTok-Shop-Webhook',
      },
    };
  }

  /** A new Amazon order (one unit of STORE_SKU): UNSHIPPED when paid, PENDING while the payment is not through. */
  newAmazonOrder(paid: boolean): PlatformOrder {
    const id = amazonOrderId();
    this.seller.save(amazonOrderOf(this.seller, { id, paid, lines: [{ sku: STORE_SKU, quantity: 1 }] }));
    return { platform: 'AMAZON', id };
  }

  payAmazonOrder(id: string): void {
    this.seller.save(amazonOrderOf(this.seller, { id, paid: true, lines: [{ sku: STORE_SKU, quantity: 1 }] }));
  }

  /** Shipments the platform applied to the order (each a package it recorded). */
  pushesApplied(order: PlatformOrder): number {
    if (order.platform === 'TIKTOK_SHOP') return this.shop.packages.filter((p) => p.orderId === order.id).length;
    return this.seller.orders.get(order.id)?.packages.length ?? 0;
  }
}

async function insertStore(
  databaseUrl: string,
  box: SecretBox,
  resellerId: string,
  platform: string,
  externalId: string,
  credentials: unknown,
): Promise<string> {
  const id = newId('sto');
  await query(
    databaseUrl,
    `insert into stores (id, reseller_id, mode, platform, external_id, name, credentials_sealed, webhook_secret_sealed, status, poll_cursor, last_polled_at, last_error, created_at, updated_at, disconnected_at, listings_synced_at)
     values ($1, $2, 'live', $3, $4, $5, $6, null, 'connected', null, now(), null, now(), now(), null, now())`,
    [id, resellerId, platform, externalId, `Faults ${platform} store`, box.sealJson(credentials)],
  );
  return id;
}
