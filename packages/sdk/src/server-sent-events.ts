import { createParser } from 'eventsource-parser';

/** One message of a `text/event-stream`. */
export interface ServerSentEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Reads Server-Sent Events from a response body, parsed by `eventsource-parser` (the WHATWG
 * format: `field: value` lines, a blank line ends a message, `:` lines are comments). A message
 * without an `event:` field is a `message`, as a browser's EventSource names it.
 */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  const parsed: ServerSentEvent[] = [];
  const parser = createParser({
    onEvent: (message) => void parsed.push({ id: message.id, event: message.event ?? 'message', data: message.data }),
  });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* parsed.splice(0);
  }
}
