import assert from 'node:assert/strict';
import { OpenApiContract } from '../src/testing/openapi-contract.ts';

const swagger2 = {
  swagger: '2.0',
  consumes: ['application/json'],
  paths: {
    '/things/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, type: 'string' }],
      get: {
        operationId: 'getThing',
        parameters: [
          { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: ['A', 'B'] } },
          { name: 'size', in: 'query', type: 'integer', maximum: 20 },
        ],
      },
      post: {
        operationId: 'putThing',
        parameters: [{ name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/Thing' } }],
      },
    },
  },
  definitions: {
    Thing: {
      type: 'object',
      required: ['ref'],
      properties: { ref: { type: 'string' }, items: { type: 'array', items: { $ref: '#/definitions/Item' } } },
    },
    Item: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } },
  },
};
const oas3 = {
  openapi: '3.0.2',
  paths: {
    '/shops/{shop_id}/listings': {
      get: {
        operationId: 'list',
        parameters: [
          { name: 'shop_id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          { name: 'flag', in: 'query', schema: { type: 'boolean', nullable: true } },
        ],
        security: [{ api_key: [], oauth2: ['listings_r'] }],
      },
    },
    '/shops/{shop_id}/listings/{listing_id}/images': {
      post: {
        operationId: 'upload',
        requestBody: {
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  image: { type: 'string', format: 'binary', nullable: true },
                  rank: { type: 'integer', minimum: 0 },
                  overwrite: { type: 'boolean' },
                },
              },
            },
          },
        },
      },
    },
  },
  components: {
    securitySchemes: {
      api_key: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      oauth2: { type: 'oauth2', flows: {} },
    },
  },
};

describe('OpenApiContract: requests held to a published OpenAPI document', () => {
  const two = new OpenApiContract(swagger2, 'S2');
  const three = new OpenApiContract(oas3, 'O3');
  const get = (c: OpenApiContract, path: string, q: Record<string, string>, scopes?: string[]) =>
    c.check({ method: 'GET', path, query: new URLSearchParams(q), ...(scopes ? { scopes } : {}) });

  it('accepts what the document allows and names the operation', () => {
    assert.deepEqual(get(two, '/things/x1', { include: 'A,B', size: '20' }), {
      operationId: 'getThing',
      violations: [],
    });
    assert.deepEqual(get(three, '/shops/7/listings', { flag: 'true' }, ['listings_r', 'shops_r']).violations, []);
  });

  it('refuses an unknown operation, parameter, enum value, bound and type', () => {
    assert.match(get(two, '/others', {}).violations[0]!, /no operation GET \/others/);
    assert.deepEqual(get(two, '/things/x1', { include: 'A,C', size: '21', extra: '1' }).violations, [
      'S2 getThing: query include[1] value "C" is not one of A, B',
      'S2 getThing: query size 21 is above 20',
      'S2 getThing: query parameter extra is not in the contract',
    ]);
    assert.match(
      get(three, '/shops/0/listings', { flag: 'maybe' }).violations.join('\n'),
      /path shop_id 0 is below 1[^]*flag must be boolean/,
    );
  });

  it('checks bodies through $ref: required fields, nested types, undeclared fields, content type', () => {
    const post = (body: unknown, contentType = 'application/json') =>
      two.check({
        method: 'POST',
        path: '/things/x1',
        query: new URLSearchParams(),
        body: JSON.stringify(body),
        contentType,
      }).violations;
    assert.deepEqual(post({ ref: '1', items: [{ n: 2 }] }), []);
    assert.deepEqual(post({ items: [{ n: 0 }], other: true }), [
      'S2 putThing: body.ref is required',
      'S2 putThing: body.items[0].n 0 is below 1',
      'S2 putThing: body.other is not a field the contract declares',
    ]);
    assert.match(post({ ref: '1' }, 'text/plain').join(), /content type text\/plain is not one of application\/json/);
    assert.match(
      two.check({ method: 'POST', path: '/things/x1', query: new URLSearchParams() }).violations.join(),
      /request body is required/,
    );
  });

  it('checks a multipart body: files only where the contract declares a binary string, text fields typed, nothing undeclared or repeated', () => {
    const upload = (form: FormData) =>
      three.check({
        method: 'POST',
        path: '/shops/7/listings/9/images',
        query: new URLSearchParams(),
        body: '(multipart bytes)',
        contentType: 'multipart/form-data; boundary=----x',
        multipart: form,
      }).violations;
    const form = (fields: Array<[string, string | Blob]>) => {
      const f = new FormData();
      for (const [name, value] of fields) f.append(name, value);
      return f;
    };
    const jpeg = new Blob([new Uint8Array([0xff, 0xd8, 0xff])], { type: 'image/jpeg' });
    assert.deepEqual(
      upload(
        form([
          ['image', jpeg],
          ['rank', '1'],
          ['overwrite', 'true'],
        ]),
      ),
      [],
    );
    assert.deepEqual(
      upload(
        form([
          ['image', 'tulips.jpg'],
          ['rank', 'first'],
          ['rank', '2'],
          ['overwrite', jpeg],
          ['colour', 'red'],
        ]),
      ),
      [
        'O3 upload: body.image must be a file (format binary), not a text field',
        'O3 upload: body.rank is given 2 times',
        'O3 upload: body.overwrite is a file, where the contract declares boolean',
        'O3 upload: body.rank must be integer, got "first"',
        'O3 upload: body.colour is not a field the contract declares',
      ],
    );
    assert.deepEqual(
      three.check({
        method: 'POST',
        path: '/shops/7/listings/9/images',
        query: new URLSearchParams(),
        body: '{"rank":1}',
        contentType: 'application/json',
      }).violations,
      ['O3 upload: content type application/json is not one of multipart/form-data'],
    );
  });

  it("refuses a token without the operation's OAuth scope", () => {
    assert.deepEqual(get(three, '/shops/7/listings', {}, ['transactions_r']).violations, [
      'O3 list: the token lacks the OAuth scope listings_r (granted: transactions_r)',
    ]);
  });
});
