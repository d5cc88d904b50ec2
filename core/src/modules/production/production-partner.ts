import type { Recipient } from '../orders/orders-tables.ts';

/**
 * What the print facility receives: white label. The sender is the reseller, and nothing
 * carries our brand or any price.
 */
export interface ProductionHandoff {
  orderId: string;
  testMode: boolean;
  sender: { name: string; email: string; phone: string };
  recipient: Recipient;
  /** Contact data the carrier uses for delivery messages (recipient's, or the reseller's as fallback). */
  carrierContact: { email: string; phone: string };
  lines: Array<{
    line: number;
    productId: string;
    quantity: number;
    options: Record<string, string | number>;
    derivedOptions: Record<string, string | number>;
    fileUrl: string;
  }>;
}

/**
 * The print facility port. Adapters: the simulator (moves orders through production on a
 * schedule) and the manual partner (progress is reported through the back-office).
 *
 * @example
 * const { reference } = await partner.submit(handoff);
 */
export interface ProductionPartner {
  readonly name: string;
  submit(handoff: ProductionHandoff): Promise<{ reference: string }>;
}
