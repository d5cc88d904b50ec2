import type { ErrorDetail } from '../../../kernel/refusal.ts';

/**
 * The API's refusals in a merchant's words, for the dashboard's pages: a field by its name
 * (`lines[0].quantity` is "Line 1: quantity", `recipient.postalCode` "Postal code"), every
 * problem as a sentence (never "and 2 more problems, in details"), no error code, HTTP status
 * or API path. The API keeps its own messages for developers; a page is read by a merchant.
 */

/** Sentences for the refusals whose API message is about the API rather than what the merchant did. */
const SENTENCES: Record<string, string> = {
  reseller_product_linked:
    'This product is sold in one of your stores, so it cannot be deleted: that store’s orders for it would be skipped. Remove the listing in the store (or make this product inactive) first.',
  rate_limited: 'Too many requests at once: wait a minute and try again.',
  csrf_failed: 'This form expired: reload the page and send it again.',
};

/** Field names as a merchant reads them (where splitting the camel case is not enough). */
const FIELD_WORDS: Record<string, string> = {
  sku: 'SKU',
  fileUrl: 'artwork URL',
  url: 'URL',
  externalProductId: 'listing',
  resellerProduct: 'your product',
  productId: 'print product',
  priceCents: 'price',
  postalCode: 'postal code',
  address1: 'address',
  address2: 'address (line 2)',
};

/** `postalCode` → 'postal code'; known names as listed. */
export function fieldWord(name: string): string {
  return (
    FIELD_WORDS[name] ??
    name
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .replace(/\burl\b/g, 'URL')
  );
}

/**
 * A field path as a merchant reads it: `lines[0].quantity` → 'Line 1: quantity',
 * `recipient.postalCode` → 'Recipient: postal code', `lines[1]` → 'Line 2'.
 */
export function fieldPhrase(path: string): string {
  const parts = path.split('.');
  let line: string | undefined;
  const words: string[] = [];
  for (const part of parts) {
    const m = /^([A-Za-z]+)\[(\d+)\]$/.exec(part);
    if (m && m[1] === 'lines') line = `Line ${Number(m[2]) + 1}`;
    else if (m) words.push(`${fieldWord(m[1]!)} ${Number(m[2]) + 1}`);
    else words.push(fieldWord(part));
  }
  const tail = words.length > 1 ? `${capital(words[0]!)}: ${words.slice(1).join(' ')}` : (words[0] ?? '');
  if (line) return tail ? `${line}: ${tail}` : line;
  return capital(tail);
}

/** One problem as a sentence: its field in words, then what is wrong ("Line 1: quantity must be at least 1"). */
export function detailSentence(d: ErrorDetail): string {
  const message = d.message ?? 'is not valid';
  if (!d.field || d.field === 'body') return sentence(plainText(message));
  const rest = message.startsWith(`${d.field} `) ? message.slice(d.field.length + 1) : message;
  // A message that does not start with its field stands on its own; a predicate gets the field as its subject.
  const predicate = /^(is|are|must|should|has|have|was|cannot|can|does|do|needs?)\b/.test(rest);
  return sentence(predicate ? `${fieldPhrase(d.field)} ${rest}` : plainText(rest));
}

/** The predicate alone, for the message shown next to its field ("must be at least 1"). */
export function fieldMessage(d: ErrorDetail): string {
  const message = d.message ?? d.code;
  const rest = d.field && message.startsWith(`${d.field} `) ? message.slice(d.field.length + 1) : message;
  return sentence(plainText(rest));
}

/**
 * A refusal's message in a merchant's words: its code's sentence where it has one, else every problem of its details
 * as a sentence, else its own message without field paths, API paths, codes or status numbers.
 */
export function merchantMessage(code: string, message: string, details: ErrorDetail[] | undefined): string {
  const known = SENTENCES[code];
  if (known) return known;
  const problems = (details ?? []).filter((d) => d.message && d.field);
  if (code === 'invalid_request' && problems.length > 0) return problems.map(detailSentence).join(' ');
  return sentence(plainText(message));
}

/** Text without the API's vocabulary: field paths in words, no API paths, HTTP statuses or "in details". */
export function plainText(text: string): string {
  return (
    text
      .replace(/^The request body is invalid: /, '')
      .replace(/ \(and \d+ more problems?, in details\)/, '')
      // An API path in parentheses is for a developer: "(POST /stores/{id}/sync)".
      .replace(/ ?\((?:[^()]*?)\b(?:GET|POST|PATCH|PUT|DELETE) \/[^()]*\)/g, '')
      .replace(/:? ?(?:use |call |see )?\b(?:GET|POST|PATCH|PUT|DELETE) \/[^\s,;)]*(?: [{][^}]*[}])?/g, '')
      .replace(/\b(?:the API answers )?(?:4\d\d|5\d\d) [a-z]+(?:_[a-z]+)+\b/g, '')
      // The API counts lines from 0 ("Line 0: …"); a merchant from 1.
      .replace(/\b([Ll])ine (\d+)\b/g, (_, l: string, n: string) => `${l}ine ${Number(n) + 1}`)
      .replace(/\b(lines\[\d+\](?:\.[A-Za-z]+)*)/g, (m) => fieldPhrase(m))
      .replace(/\s{2,}/g, ' ')
      .replace(/\s+([.,;:])/g, '$1')
      .replace(/[:;,]+([.!?])/g, '$1')
      .replace(/[:;,]\s*$/, '')
      .trim()
  );
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function sentence(s: string): string {
  const t = capital(s.trim());
  return /[.!?…]$/.test(t) ? t : `${t}.`;
}

/**
 * A price as a person types it, in euros: "29.95", "29,95", "€ 1.299,50", "1,299.50" or "30" →
 * cents; undefined when it is not one. The last `.` or `,` followed by one or two digits is the
 * decimal separator; other separators group thousands.
 */
export function parsePrice(input: string): number | undefined {
  const s = input.replace(/\s|€|eur/gi, '');
  if (!/^\d[\d.,]*$/.test(s)) return undefined;
  const m = /^(.*?)(?:[.,](\d{1,2}))?$/.exec(s)!;
  const whole = m[1]!;
  // Thousands are grouped by threes; anything else is not a price we can read.
  if (!/^\d+$/.test(whole) && !/^\d{1,3}([.,]\d{3})+$/.test(whole)) return undefined;
  const euros = Number(whole.replace(/[.,]/g, ''));
  const cents = m[2] ? Number(m[2].padEnd(2, '0')) : 0;
  const total = euros * 100 + cents;
  return Number.isSafeInteger(total) ? total : undefined;
}
