import {
  ConnectorError,
  parsePayload,
  PlatformOptionsRequired,
  type PlatformOptionChoice,
} from '@print-api/connector-kit';
import { z } from 'zod';
import type { EtsyClient } from './etsy-client.ts';

const id = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(Number);
const page = <T extends z.ZodType>(item: T) => z.object({ count: z.number().nullish(), results: z.array(item) });
const shippingProfiles = page(
  z.object({ shipping_profile_id: id, title: z.string().nullish(), is_deleted: z.boolean().nullish() }),
);
const readinessStates = page(
  z.object({
    readiness_state_id: id,
    readiness_state: z.string().nullish(),
    min_processing_days: z.number().nullish(),
    max_processing_days: z.number().nullish(),
    processing_days_display_label: z.string().nullish(),
  }),
);
const returnPolicies = page(
  z.object({
    return_policy_id: id,
    accepts_returns: z.boolean().nullish(),
    accepts_exchanges: z.boolean().nullish(),
    return_deadline: z.number().nullish(),
  }),
);

/** What an Etsy listing needs of its shop's set-up: the ids `createDraftListing` and the offerings take. */
export interface ShopProfiles {
  shippingProfileId: number;
  readinessStateId: number | null;
  returnPolicyId: number | null;
}

type Choice = { id: number; name: string };

/**
 * The shop's shipping profile, processing profile (readiness state) and return policy for a listing, as Printful and
 * Printify do it: the merchant's choice where given, else the shop's only one (`getShopShippingProfiles`,
 * `getShopReadinessStateDefinitions`, `getShopReturnPolicies`). Where the shop has several and none was chosen, one
 * PlatformOptionsRequired names every choice to make (core answers 422 `platform_options_required`). A shop without a
 * shipping profile cannot list a physical product at all (Etsy: "A shipping_profile_id is required for physical
 * listings"); without a processing profile or return policy the listing goes without one.
 */
export async function shopProfiles(
  client: EtsyClient,
  shopId: string,
  chosen: {
    shippingProfileId?: number | undefined;
    readinessStateId?: number | undefined;
    returnPolicyId?: number | undefined;
  },
): Promise<ShopProfiles> {
  const get = async <T extends z.ZodType>(
    path: string,
    operation: string,
    schema: T,
    what: string,
    query?: Record<string, number>,
  ) =>
    parsePayload(
      schema,
      await client.call({ method: 'GET', path, operation, ...(query ? { query } : {}) }),
      what,
    ) as z.infer<T>;
  const shipping: Choice[] | null =
    chosen.shippingProfileId !== undefined
      ? null
      : (
          await get(
            `/shops/${shopId}/shipping-profiles`,
            'getShopShippingProfiles',
            shippingProfiles,
            'Etsy shipping profiles',
          )
        ).results
          .filter((p) => !p.is_deleted)
          .map((p) => ({ id: p.shipping_profile_id, name: p.title || `Shipping profile ${p.shipping_profile_id}` }));
  const readiness: Choice[] | null =
    chosen.readinessStateId !== undefined
      ? null
      : (
          await get(
            `/shops/${shopId}/readiness-state-definitions`,
            'getShopReadinessStateDefinitions',
            readinessStates,
            'Etsy processing profiles',
            { limit: 100 },
          )
        ).results.map((r) => ({
          id: r.readiness_state_id,
          name:
            r.processing_days_display_label ||
            [r.readiness_state?.replace(/_/g, ' '), processingDays(r.min_processing_days, r.max_processing_days)]
              .filter(Boolean)
              .join(', ') ||
            `Processing profile ${r.readiness_state_id}`,
        }));
  const returns: Choice[] | null =
    chosen.returnPolicyId !== undefined
      ? null
      : (
          await get(`/shops/${shopId}/policies/return`, 'getShopReturnPolicies', returnPolicies, 'Etsy return policies')
        ).results.map((r) => ({ id: r.return_policy_id, name: returnPolicyName(r) }));
  if (shipping?.length === 0)
    throw new ConnectorError(
      'invalid_payload',
      'The Etsy shop has no shipping profile, and Etsy lists no physical product without one: create one in Shop Manager (Settings › Delivery settings), then publish again.',
    );
  const open: PlatformOptionChoice[] = [];
  const several = (option: string, label: string, choices: Choice[] | null) => {
    if (choices && choices.length > 1)
      open.push({ option, label, choices: choices.map((c) => ({ id: String(c.id), name: c.name })) });
  };
  several('shippingProfileId', 'shipping profile', shipping);
  several('readinessStateId', 'processing profile', readiness);
  several('returnPolicyId', 'return policy', returns);
  if (open.length > 0) throw new PlatformOptionsRequired('Etsy', open);
  return {
    shippingProfileId: chosen.shippingProfileId ?? shipping![0]!.id,
    readinessStateId: chosen.readinessStateId ?? readiness?.[0]?.id ?? null,
    returnPolicyId: chosen.returnPolicyId ?? returns?.[0]?.id ?? null,
  };
}

function processingDays(min: number | null | undefined, max: number | null | undefined): string | null {
  if (!min && !max) return null;
  return min === max || !max ? `${min} days` : `${min ?? 1}-${max} days`;
}

function returnPolicyName(r: {
  return_policy_id: number;
  accepts_returns?: boolean | null | undefined;
  accepts_exchanges?: boolean | null | undefined;
  return_deadline?: number | null | undefined;
}): string {
  const what = [r.accepts_returns ? 'returns' : null, r.accepts_exchanges ? 'exchanges' : null].filter(Boolean);
  if (what.length === 0) return 'No returns or exchanges';
  return `${what.join(' and ')} within ${r.return_deadline ?? '?'} days`.replace(/^./, (c) => c.toUpperCase());
}
