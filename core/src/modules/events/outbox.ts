import type { RawBuilder, Transaction } from 'kysely';
import { insertFromJson } from '../../infra/db/json-insert.ts';
import { newId } from '../../infra/ids.ts';
import type { Mode } from '../../kernel/tenant.ts';
import type { Tables } from '../tables.ts';

export interface EventEnvelope {
  id: string;
  type: string;
  createdAt: string;
  testMode: boolean;
  data: Record<string, unknown>;
}

/**
 * The event body in its documented field order (the stored jsonb does not keep key order): what a webhook delivery and
 * the event stream send.
 */
export function envelopeOf(payload: Record<string, unknown>): EventEnvelope {
  return {
    id: String(payload.id),
    type: String(payload.type),
    createdAt: String(payload.createdAt),
    testMode: payload.testMode === true,
    data: (payload.data ?? {}) as Record<string, unknown>,
  };
}

/**
 * Listeners told after a commit that new events wait (the webhook dispatcher); best effort, the sweeper is the
 * guarantee.
 */
export type OutboxListener = () => void;

/** A subscriber to one event type: given the committed events of that type a writer hands to `notify`. */
export type EventSubscriber = (events: EventEnvelope[]) => void;

/** An event to write: whose, which type, about which order, its data. */
export interface OutboxEvent {
  resellerId: string;
  mode: Mode;
  type: string;
  orderId?: string | null;
  data: Record<string, unknown>;
  at?: Date;
}

/** Outbox listeners are told of commits at most this often (the first commit at once, the rest at the window's end). */
const NOTIFY_WINDOW_MS = 10;

/** Writes events inside the caller's transaction. */
export class Outbox {
  readonly #listeners: OutboxListener[] = [];
  readonly #subscribers = new Map<string, EventSubscriber[]>();

  onWritten(listener: OutboxListener): void {
    this.#listeners.push(listener);
  }

  /**
   * Subscribes to events of `type`, told at once with the events of each commit whose writer
   * hands them to `notify` (an order's production report does: order.shipped). Best effort:
   * a subscriber's own sweep finds what a crash between the commit and the call lost.
   */
  subscribe(type: string, subscriber: EventSubscriber): void {
    this.#subscribers.set(type, [...(this.#subscribers.get(type) ?? []), subscriber]);
  }

  #window: NodeJS.Timeout | undefined;
  #again = false;

  /**
   * Call after the transaction that wrote events committed. Listeners are told at once, and then
   * at most once per NOTIFY_WINDOW_MS however many commits call this meanwhile, the last of them
   * at the window's end: each listener looks for everything pending, so one call serves every
   * commit before it. `committed`, the events the commit wrote, go to their types' subscribers.
   */
  notify(committed: readonly EventEnvelope[] = []): void {
    for (const [type, subscribers] of this.#subscribers) {
      const events = committed.filter((e) => e.type === type);
      if (events.length > 0) for (const s of subscribers) s(events);
    }
    if (this.#window) {
      this.#again = true;
      return;
    }
    for (const l of this.#listeners) l();
    this.#window = setTimeout(() => {
      this.#window = undefined;
      if (!this.#again) return;
      this.#again = false;
      this.notify();
    }, NOTIFY_WINDOW_MS);
    this.#window.unref();
  }

  async write(trx: Transaction<Tables>, event: OutboxEvent): Promise<EventEnvelope> {
    return (await this.writeMany(trx, [event]))[0]!;
  }

  /** Writes several events in one statement, in the order given (their ids sort the same way). */
  async writeMany(trx: Transaction<Tables>, events: OutboxEvent[]): Promise<EventEnvelope[]> {
    if (events.length === 0) return [];
    const { insert, envelopes } = this.insertOf(events);
    await insert.execute(trx);
    return envelopes;
  }

  /**
   * The insert of `writeMany`, not run: for a caller that writes the events as part of one larger
   * statement (which must commit with the change the events tell of). `events` is not empty.
   * All rows go as one jsonb parameter (`insertFromJson`), each payload as its JSON object.
   */
  insertOf(events: OutboxEvent[]): { insert: RawBuilder<unknown>; envelopes: EventEnvelope[] } {
    const envelopes: EventEnvelope[] = [];
    const rows = events.map((event) => {
      const at = event.at ?? new Date();
      const envelope: EventEnvelope = {
        id: newId('evt', at.getTime()),
        type: event.type,
        createdAt: at.toISOString(),
        testMode: event.mode === 'test',
        data: event.data,
      };
      envelopes.push(envelope);
      return {
        id: envelope.id,
        reseller_id: event.resellerId,
        mode: event.mode,
        type: event.type,
        order_id: event.orderId ?? null,
        payload: envelope,
        created_at: at,
      };
    });
    return { insert: insertFromJson('events', rows), envelopes };
  }
}
