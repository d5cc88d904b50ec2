/**
 * TikTok's ids are 64-bit integers written as strings ("576461413038785752"): beyond 2^53 a JS
 * number loses digits. They should always arrive quoted, but a field that ever arrives as a bare
 * number must not be rounded. `parseTikTokJson` keeps every integer that is not exactly
 * representable (and every number under a key naming an id) as the digits of its source text.
 */
type SourceContext = { source?: string };

const ID_KEY = /(^id$|_id$|^ids$)/;

export function parseTikTokJson(text: string): unknown {
  return JSON.parse(text, function (this: unknown, key: string, value: unknown, context?: SourceContext) {
    if (typeof value !== 'number' || context?.source === undefined) return value;
    const source = context.source;
    if (/^-?\d+$/.test(source) && (!Number.isSafeInteger(value) || ID_KEY.test(key))) return source;
    return value;
  } as (this: unknown, key: string, value: unknown) => unknown);
}
