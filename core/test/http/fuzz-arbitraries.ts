import fc from 'fast-check';

/**
 * A JSON document as its text can carry it, which a JS value cannot: objects as entry lists
 * (duplicate and `__proto__` keys kept), raw tokens (numbers beyond a double, nesting deeper
 * than any serializer would recurse).
 */
export type JsonNode =
  | null
  | boolean
  | number
  | string
  | JsonNode[]
  | { kind: 'object'; entries: Array<[string, JsonNode]> }
  | { kind: 'raw'; text: string };

/**
 * The text of a node. Strings go through JSON.stringify, which writes NUL and lone surrogates as `\u0000`, `\ud800`.
 */
export function jsonText(node: JsonNode): string {
  if (node === null || typeof node !== 'object') return JSON.stringify(node) ?? 'null';
  if (Array.isArray(node)) return `[${node.map(jsonText).join(',')}]`;
  if (node.kind === 'raw') return node.text;
  return `{${node.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
}

const object = (entries: Array<[string, JsonNode]>): JsonNode => ({ kind: 'object', entries });
const raw = (text: string): JsonNode => ({ kind: 'raw', text });

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const oddCharacter = fc.oneof(
  fc.constant('\u0000'),
  loneSurrogate,
  fc.constantFrom(
    '\u0001',
    '\u001f',
    '\u007f',
    '\u0085',
    '\u00a0',
    '\u2028',
    '\u202e',
    '\u0301',
    '\ufeff',
    '\ufffd',
    '\uffff',
    '\u{1f600}',
    '\u{10ffff}',
    '"',
    '\\',
    '%',
    '/',
    "'",
    '`',
    '${',
    '<',
    '\n',
    '\t',
  ),
);

/** Strings that have broken services: NUL, lone surrogates, control and bidi characters, injections, very long text. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udc00',
    'x\udbff',
    '\udfff\ud800',
    '\u{1f600}',
    'e\u0301',
    '%00',
    '%',
    '../../etc/passwd',
    '__proto__',
    'constructor',
    'prototype',
    'null',
    'true',
    '-1',
    '1e400',
    'NaN',
    "'; drop table orders; --",
    '{{7*7}}',
  ),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.tuple(fc.string({ maxLength: 8 }), oddCharacter, fc.string({ maxLength: 8 })).map(([a, b, c]) => a + b + c),
  fc
    .tuple(fc.constantFrom(300, 5_000, 70_000, 300_000), fc.constantFrom('x', '\u00e9', '\u{1f600}', '\u0000'))
    .map(([n, c]) => c.repeat(n)),
);

/** Shorter hostile text, for URLs and headers (a request head has to stay under 16 KB). */
export const hostileShortString = hostileString.filter((s) => s.length <= 1_000);

const hostileNumber: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.constantFrom<JsonNode>(
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    -(2 ** 63),
    2 ** 64,
    5e-324,
    -0,
    0.5,
    -1,
    0,
    1.0000000000000002,
  ),
  fc
    .constantFrom(
      '1e400',
      '-1e400',
      '123456789012345678901234567890',
      '1E+2',
      '-0',
      '0.00000000000000000000001',
      '1e-400',
    )
    .map(raw),
  fc.double().map((n) => (Number.isFinite(n) ? n : 0)),
);

/** Nesting deeper than any request needs, as text (no serializer recursion on our side). */
const deepNesting: fc.Arbitrary<JsonNode> = fc
  .tuple(fc.constantFrom(40, 200, 5_000, 100_000), fc.boolean())
  .map(([n, arrays]) => raw(arrays ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`));

export const anyJson: fc.Arbitrary<JsonNode> = fc.letrec<{ node: JsonNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string({ maxLength: 12 }),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.array(fc.tuple(fc.string({ maxLength: 8 }), tie('node')), { maxLength: 3 }).map(object),
  ),
})).node;

/** Objects whose keys reach for the prototype chain. */
const prototypeKeys: fc.Arbitrary<JsonNode> = fc
  .array(
    fc.tuple(
      fc.constantFrom(
        '__proto__',
        'constructor',
        'prototype',
        'hasOwnProperty',
        'toString',
        'valueOf',
        'toJSON',
        'then',
        'length',
      ),
      anyJson,
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((entries) => object([...entries, ['__proto__', object([['polluted', true]])]]));

/** A value of the wrong kind or of the hostile sort, for any place in a document. */
export const hostileJson: fc.Arbitrary<JsonNode> = fc.oneof(
  hostileString,
  hostileNumber,
  deepNesting,
  prototypeKeys,
  anyJson,
  fc.constantFrom<JsonNode>(null, true, [], object([])),
);

type Schema = Record<string, any>;

/** Addresses the service can parse but never reach outside this machine (closed loopback ports): no DNS, no traffic. */
const urls = fc.constantFrom(
  'https://127.0.0.1:9/art/flyer.pdf',
  'https://localhost:9/a.png',
  'https://[::1]:9/x',
  'http://127.0.0.1:9/plain.pdf',
  'https://0.0.0.0:9/',
  'https://user:pw@localhost:9/a.pdf',
  'ftp://127.0.0.1:9/a.pdf',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'https://localhost:9/%00.pdf',
  'not a url',
);

function shapedString(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'uri') return urls;
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'date-time')
    return fc.date({ min: new Date(0), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 1_000));
    } catch {
      // A pattern fast-check cannot generate from: plain strings below.
    }
  }
  const minLength = schema.minLength ?? 0;
  const plain = fc.string({
    unit: 'grapheme',
    minLength,
    maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 40, 40)),
  });
  // Valid text with one odd character inside: NUL and lone surrogates where a value is expected.
  const spiked = fc.tuple(plain, oddCharacter).map(([s, c]) => s.slice(0, 1) + c + s.slice(1));
  return fc.oneof({ weight: 9, arbitrary: plain }, { weight: 1, arbitrary: spiked });
}

/** Values that exist (a catalogue product id, a SKU), by property name: they get requests past the lookups. */
export type Hints = Record<string, JsonNode[]>;

/**
 * Documents shaped by a JSON schema (as the OpenAPI description gives it): a third valid (as
 * far as the schema says), the others with one value anywhere in them replaced by a hostile one.
 */
export function fromSchema(schema: Schema | undefined, hints: Hints = {}): fc.Arbitrary<JsonNode> {
  return fc
    .tuple(shapedFromSchema(schema ?? {}, hints, 0), fc.option(fc.tuple(fc.nat(), hostileJson), { freq: 3 }))
    .map(([document, mutation]) => (mutation ? replaceNth(document, mutation[0], mutation[1]) : document));
}

/** The document with its `n`-th value (in document order, modulo their number) replaced by `by`. */
function replaceNth(document: JsonNode, n: number, by: JsonNode): JsonNode {
  let count = 0;
  const counting = (node: JsonNode): void => {
    count++;
    if (Array.isArray(node)) node.forEach(counting);
    else if (node !== null && typeof node === 'object' && node.kind === 'object')
      node.entries.forEach(([, v]) => counting(v));
  };
  counting(document);
  let index = n % count;
  const replacing = (node: JsonNode): JsonNode => {
    if (index-- === 0) return by;
    if (Array.isArray(node)) return node.map(replacing);
    if (node !== null && typeof node === 'object' && node.kind === 'object')
      return object(node.entries.map(([k, v]) => [k, replacing(v)]));
    return node;
  };
  return replacing(document);
}

function shapedFromSchema(schema: Schema, hints: Hints, depth: number): fc.Arbitrary<JsonNode> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as JsonNode[]));
  if ('const' in schema) return fc.constant(schema.const as JsonNode);
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => shapedFromSchema(s, hints, depth)));
  switch (schema.type) {
    case 'string':
      return shapedString(schema);
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1e9, -1e15), max: Math.min(schema.maximum ?? 1e9, 1e15) });
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        min: schema.minimum ?? -1e9,
        max: schema.maximum ?? 1e9,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return depth > 4
        ? fc.constant([])
        : fc.array(shapedFromSchema(schema.items ?? {}, hints, depth + 1), {
            minLength: schema.minItems ?? 0,
            maxLength: Math.min(schema.maxItems ?? 4, 4),
          });
    case 'object':
      return shapedObject(schema, hints, depth);
    default:
      return anyJson;
  }
}

function shapedObject(schema: Schema, hints: Hints, depth: number): fc.Arbitrary<JsonNode> {
  if (depth > 4) return fc.constant(object([]));
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const known = Object.entries(properties).map(([name, s]) => {
    const shaped = shapedFromSchema(s, hints, depth + 1);
    const value = hints[name] ? fc.oneof(fc.constantFrom(...hints[name]), shaped) : shaped;
    return fc
      .tuple(required.has(name) ? fc.constant(true) : fc.boolean(), value)
      .map(([present, v]) => (present ? [[name, v] as [string, JsonNode]] : []));
  });
  const extraKey = fc.oneof(
    schema.propertyNames ? (shapedString(schema.propertyNames) as fc.Arbitrary<string>) : fc.string({ maxLength: 12 }),
    hostileShortString,
  );
  const extraValue =
    typeof schema.additionalProperties === 'object'
      ? shapedFromSchema(schema.additionalProperties, hints, depth + 1)
      : hostileJson;
  // A closed object still gets an unknown key now and then.
  const extras = fc.array(fc.tuple(extraKey, extraValue), { maxLength: schema.additionalProperties === false ? 1 : 3 });
  const extrasOdds =
    schema.additionalProperties === false
      ? fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: extras })
      : extras;
  return fc.tuple(fc.tuple(...known), extrasOdds).map(([props, more]) => object([...props.flat(), ...more]));
}

/**
 * Percent-encodes text for a URL, lone surrogates included (as the three bytes WTF-8 gives them, which no UTF-8 decoder
 * accepts).
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

/** Percent-encoding gone wrong, written into URLs as it is. */
export const brokenEncoding = fc.constantFrom(
  '%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '%2e%2e',
  '%2F',
  '%ff',
  '%C0%80',
  '%ED%A0%80',
  '%25',
  '+',
  '%u0000',
);

/** A URL component: shaped or hostile text, encoded, sometimes with broken encoding around it. */
export function urlComponent(shaped: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const text = fc
    .oneof({ weight: 6, arbitrary: shaped }, { weight: 1, arbitrary: hostileShortString })
    .map(percentEncode);
  return fc.oneof(
    { weight: 9, arbitrary: text },
    { weight: 1, arbitrary: fc.tuple(text, brokenEncoding, text).map(([a, b, c]) => a + b + c) },
  );
}

/** Header text a client can send: visible ASCII and Latin-1, sometimes long. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: 80,
  }),
  fc.string({
    unit: fc.integer({ min: 0xa0, max: 0xff }).map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: 20,
  }),
  fc.constantFrom('x'.repeat(300), 'x'.repeat(5_000), ' ', '\t x'),
);
