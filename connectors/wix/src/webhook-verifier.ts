import { createPublicKey, type KeyObject } from 'node:crypto';
import { verifyRs256Jwt, type InboundWebhook, type WebhookVerdict } from '@print-api/connector-kit';
import { APP_REMOVED_EVENT, JWT_ISSUER, MAX_CLOCK_SKEW_MS, MAX_EVENT_AGE_MS, type WixSettings } from './config.ts';

/**
 * A Wix delivery, unwrapped: the body is a JWT whose `data` claim is a JSON string of the
 * envelope `{eventType, instanceId, data, identity}`, whose `data` is a JSON string of the event
 * (`{id, entityFqdn, slug, entityId, eventTime, actionEvent | createdEvent | updatedEvent | deletedEvent}`).
 */
export interface WixEnvelope {
  eventType: string;
  instanceId: string;
  event: Record<string, unknown>;
}

const b64json = (part: string): Record<string, unknown> | null => {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/** The three levels of JSON strings inside the JWT payload, or why they are not there. */
export function unwrapPayload(payload: Record<string, unknown>): WixEnvelope | string {
  if (typeof payload.data !== 'string') return 'the JWT has no data claim of JSON text';
  let envelope: Record<string, unknown>;
  try {
    envelope = JSON.parse(payload.data) as Record<string, unknown>;
  } catch {
    return 'the JWT data claim is not JSON';
  }
  if (typeof envelope !== 'object' || envelope === null) return 'the JWT data claim is not a JSON object';
  if (typeof envelope.eventType !== 'string' || !envelope.eventType) return 'the event has no eventType';
  if (typeof envelope.instanceId !== 'string' || !envelope.instanceId) return 'the event has no instanceId';
  let event: Record<string, unknown> = {};
  if (typeof envelope.data === 'string' && envelope.data) {
    try {
      const parsed: unknown = JSON.parse(envelope.data);
      if (typeof parsed === 'object' && parsed !== null) event = parsed as Record<string, unknown>;
    } catch {
      return 'the event data is not JSON';
    }
  } else if (typeof envelope.data === 'object' && envelope.data !== null) {
    event = envelope.data as Record<string, unknown>;
  }
  return { eventType: envelope.eventType, instanceId: envelope.instanceId.toLowerCase(), event };
}

/** The app's key, parsed once (every delivery is verified with it). */
const parsedKeys = new Map<string, KeyObject>();
function publicKeyOf(pem: string): KeyObject {
  let key = parsedKeys.get(pem);
  if (!key) {
    key = createPublicKey(pem);
    parsedKeys.set(pem, key);
  }
  return key;
}

/**
 * The envelope of a delivery without checking its signature: only to name its store (identifyStore), never to act on.
 */
export function peekEnvelope(rawBody: Buffer): WixEnvelope | null {
  const parts = rawBody.toString('utf8').trim().split('.');
  if (parts.length !== 3) return null;
  const payload = b64json(parts[1]!);
  if (!payload) return null;
  const envelope = unwrapPayload(payload);
  return typeof envelope === 'string' ? null : envelope;
}

/**
 * Checks a delivery: the body must be an RS256 JWT signed with our app's key (the kit's
 * `verifyRs256Jwt`: algorithm, signature on the exact text, `exp`/`nbf`/`iat` when present),
 * issued by `wix.com` and meant for our app id when it says so (`iss`, `aud`), with the
 * envelope nested as Wix nests it. An event older than Wix's two days of resends (by its
 * `eventTime`, else `iat`) is a replay. The event key is the event's `id` (the same on
 * every resend); events without one (App Instance Removed) are keyed by type and instance.
 */
export async function verifyWixWebhook(req: InboundWebhook, settings: WixSettings, now: Date): Promise<WebhookVerdict> {
  const token = req.rawBody.toString('utf8').trim();
  const verdict = await verifyRs256Jwt(token, publicKeyOf(settings.publicKey), { now });
  if (!verdict.ok) return { ok: false, reason: verdict.reason };
  const { payload } = verdict;
  if (payload.iss !== undefined && payload.iss !== JWT_ISSUER)
    return { ok: false, reason: `the JWT issuer is ${JSON.stringify(payload.iss)}, not ${JWT_ISSUER}` };
  if (payload.aud !== undefined) {
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!audiences.includes(settings.appId))
      return {
        ok: false,
        reason: `the JWT is meant for ${JSON.stringify(payload.aud)}, not our app ${settings.appId}`,
      };
  }
  const envelope = unwrapPayload(payload);
  if (typeof envelope === 'string') return { ok: false, reason: envelope };
  const eventTime = typeof envelope.event.eventTime === 'string' ? Date.parse(envelope.event.eventTime) : NaN;
  const at = Number.isFinite(eventTime) ? eventTime : typeof payload.iat === 'number' ? payload.iat * 1000 : null;
  if (at !== null) {
    if (now.getTime() - at > MAX_EVENT_AGE_MS)
      return {
        ok: false,
        reason: `stale delivery: the event happened at ${new Date(at).toISOString()}, past Wix's two days of resends`,
      };
    if (at - now.getTime() > MAX_CLOCK_SKEW_MS)
      return { ok: false, reason: `the event time ${new Date(at).toISOString()} is in the future` };
  }
  const id = typeof envelope.event.id === 'string' && envelope.event.id ? envelope.event.id : null;
  return {
    ok: true,
    topic: envelope.eventType,
    eventId: id
      ? `${envelope.eventType}:${id}`
      : envelope.eventType === APP_REMOVED_EVENT
        ? `${APP_REMOVED_EVENT}:${envelope.instanceId}`
        : null,
    occurredAt: at === null ? null : new Date(at).toISOString(),
  };
}
