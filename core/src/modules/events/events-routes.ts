import { z } from 'zod';
import { EXAMPLE_ORDER, exampleEvent } from '../../web/api-examples.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import type { AccountsService } from '../accounts/accounts-service.ts';
import { SUBSCRIBABLE_EVENTS } from '../webhooks/webhook-event-types.ts';
import type { EventStreams } from './event-stream.ts';

const EVENT_TYPES = SUBSCRIBABLE_EVENTS.filter((t) => t !== '*');

const streamQuery = {
  after: z
    .string()
    .regex(/^evt_[0-9A-Z]{10,40}$/, 'after must be an event id (evt_…)')
    .optional()
    .meta({
      description:
        'Resume after this event id (the last one you received). Without it (and without Last-Event-ID) the stream starts with the next new event.',
    }),
  types: z
    .string()
    .max(1000)
    .optional()
    .transform((text, ctx) => {
      const types = (text ?? '')
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');
      for (const t of types)
        if (!EVENT_TYPES.includes(t))
          ctx.addIssue({ code: 'custom', message: `'${t}' is not an event type; one of ${EVENT_TYPES.join(', ')}` });
      return types;
    })
    .meta({ description: `Comma-separated event types to receive (default: all): ${EVENT_TYPES.join(', ')}.` }),
};

const lastEventIdHeader = {
  name: 'Last-Event-ID',
  required: false,
  description: 'Sent by an EventSource when it reconnects: resume after this event id (like ?after=).',
};

const streamDescription = [
  'A Server-Sent Events stream (text/event-stream) of your events, the ones webhooks deliver, for forwarding to a local URL',
  "(`npm run admin -- listen`, the SDK's `client.events.listen()`): your process delivers them, so nothing has to reach your machine.",
  'The first message is `event: ready`; each event is `id: <event id>`, `event: <type>`, `data: <the exact JSON body a webhook delivery sends>`;',
  'a comment line (`: keep-alive`) comes every 15 s. Reconnect with Last-Event-ID (or ?after=) to receive what you missed, at least once, in id order (an event committed late comes when it commits). Deduplicate on the event id.',
].join(' ');

/** What the stream's first seconds look like on the wire: `ready`, an event, a keep-alive. */
function streamExample(mode: 'live' | 'test'): string {
  const testMode = mode === 'test';
  const order = { ...EXAMPLE_ORDER, state: 'SUBMITTED', status: 'PAID', testMode };
  const body = {
    ...exampleEvent('order.created', 'evt_01M89QQT4KC3K09ZVQD6Y1C5E0', EXAMPLE_ORDER.createdAt, { order }),
    testMode,
  };
  return [
    'retry: 2000',
    'event: ready',
    `data: ${JSON.stringify({ mode, after: null })}`,
    '',
    `id: ${body.id}`,
    'event: order.created',
    `data: ${JSON.stringify(body)}`,
    '',
    ': keep-alive',
    '',
    '',
  ].join('\n');
}

function lastEventId(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers['last-event-id'];
  const id = Array.isArray(value) ? value[0] : value;
  return id && /^evt_[0-9A-Z]{10,40}$/.test(id) ? id : undefined;
}

/** `GET /events/stream`: the API key's own events, in the key's mode. */
export function eventStreamRoutes(deps: { streams: EventStreams }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/events/stream',
      operationId: 'streamEvents',
      summary: 'Stream your events (Server-Sent Events) for local forwarding',
      description: `${streamDescription} A prk_test_ key streams sandbox events, a prk_live_ key live ones.`,
      tags: ['Webhooks'],
      auth: 'apiKey',
      scope: 'webhooks:read',
      query: z.object(streamQuery),
      headers: [lastEventIdHeader],
      responses: {
        200: {
          description: 'The event stream, open until you close it',
          contentType: 'text/event-stream',
          example: streamExample('test'),
        },
      },
      handle: async ({ auth, query, headers, res }) => {
        await deps.streams.serve(
          {
            resellerId: auth.resellerId,
            mode: auth.mode,
            after: query.after ?? lastEventId(headers),
            types: query.types,
          },
          res,
        );
        return { status: 200, body: undefined };
      },
    }),
  ];
}

/** `GET /admin/v1/resellers/{id}/events/stream`: the back-office's view of the same stream (the CLI's `listen`). */
export function adminEventStreamRoutes(deps: { streams: EventStreams; accounts: AccountsService }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/resellers/{id}/events/stream',
      operationId: 'streamResellerEvents',
      summary: "Stream a reseller's events (Server-Sent Events); the CLI's `listen`",
      description: `${streamDescription} \`mode\` picks the sandbox (test, default) or live events.`,
      tags: ['Back-office'],
      auth: 'admin',
      params: z.object({ id: z.string().min(1).max(64) }),
      query: z.object({
        ...streamQuery,
        mode: z.enum(['live', 'test']).default('test').meta({ description: 'test (default) or live events.' }),
      }),
      headers: [lastEventIdHeader],
      responses: {
        200: {
          description: 'The event stream, open until you close it',
          contentType: 'text/event-stream',
          example: streamExample('test'),
        },
      },
      errors: [{ status: 404, code: 'not_found', description: 'Unknown reseller.' }],
      handle: async ({ params, query, headers, res }) => {
        await deps.accounts.getReseller(params.id);
        await deps.streams.serve(
          { resellerId: params.id, mode: query.mode, after: query.after ?? lastEventId(headers), types: query.types },
          res,
        );
        return { status: 200, body: undefined };
      },
    }),
  ];
}
