import { createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { signRs256Jwt } from '@print-api/connector-kit';
import wixOrder from '../../connectors/wix/test/fixtures/order.json' with { type: 'json' };
import type { SignedWebhook } from '@print-api/connector-kit/testing';
import type { Platform } from '../connector-scenarios.ts';

/**
 * The bench's Wix app: its settings go to the service (the child processes inherit
 * process.env), and its private key signs the
 * deliveries here as Wix signs them (an RS256 JWT body, three levels of JSON strings).
 */
const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
/** Parsed once: signing with the PEM text would parse it for every delivery. */
const signingKey = createPrivateKey(keys.privateKey);
const APP_ID = 'b3a1c0de-0000-4000-8000-00000000be01';
process.env.CONNECTOR_WIX_APP_ID = APP_ID;
process.env.CONNECTOR_WIX_APP_SECRET = randomUUID();
process.env.CONNECTOR_WIX_PUBLIC_KEY = keys.publicKey;
const INSTANCE = 'b3a1c0de-0000-4000-8000-00000000a001';

/** Ships within Europe: the documented order, moved to Amsterdam. */
const destination = {
  address: { country: 'NL', city: 'Amsterdam', postalCode: '1015 CS', addressLine1: 'Keizersgracht 12' },
  contactDetails: { firstName: 'Ada', lastName: 'Lovelace', phone: '+31 20 555 0100' },
};

const signed = new Map<number, SignedWebhook>();

/** Store order number `n` as a signed `order_payment_status_updated` delivery. */
function sign(n: number): SignedWebhook {
  const now = new Date().toISOString();
  const order = {
    ...wixOrder,
    id: randomUUID(),
    number: String(200_000 + n),
    createdDate: now,
    updatedDate: now,
    shippingInfo: { title: 'Standard', logistics: { shippingDestination: destination } },
  };
  const event = {
    id: randomUUID(),
    entityFqdn: 'wix.ecom.v1.order',
    slug: 'payment_status_updated',
    entityId: order.id,
    eventTime: now,
    actionEvent: { body: { order, previousPaymentStatus: 'NOT_PAID' } },
  };
  const envelope = {
    data: JSON.stringify(event),
    instanceId: INSTANCE,
    eventType: 'wix.ecom.v1.order_payment_status_updated',
    identity: JSON.stringify({ identityType: 'APP' }),
  };
  const iat = Math.floor(Date.now() / 1000);
  return {
    body: signRs256Jwt(
      { data: JSON.stringify(envelope), iat, exp: iat + 3600, iss: 'wix.com', aud: APP_ID },
      signingKey,
      { kid: 'bench' },
    ),
    headers: { 'content-type': 'text/plain' },
  };
}

/**
 * Wix: a site seeded as installed (its token minted for hours, so placing an order calls
 * nothing), `wix.ecom.v1.order_payment_status_updated` deliveries carrying the whole paid order
 * (one print line of POSTER-TULIPS), posted to the app-level webhook URL and routed by instanceId.
 */
export const wixBench: Platform = {
  name: 'Wix',
  slug: 'wix',
  platform: 'WIX',
  appLevelWebhooks: true,
  externalId: () => INSTANCE,
  credentials: () => ({
    instanceId: INSTANCE,
    accessToken: `OauthNG.JWS.bench-${randomUUID()}`,
    expiresAt: new Date(Date.now() + 4 * 3600_000).toISOString(),
  }),
  secret: () => keys.privateKey,
  storeSecret: false,
  // RSA signing costs milliseconds of the bench's own CPU: the deliveries are signed ahead, off the clock.
  prepare: (_ctx, deliveries) => {
    for (let n = 1; n <= deliveries; n++) if (!signed.has(n)) signed.set(n, sign(n));
  },
  delivery: (_ctx, n) => {
    const ready = signed.get(n);
    signed.delete(n);
    return ready ?? sign(n);
  },
};
