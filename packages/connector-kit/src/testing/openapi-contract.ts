/**
 * A platform's published contract, held against the requests a connector sends to its fake:
 * an OpenAPI document (Swagger 2.0, as Amazon's selling-partner-api-models, or OpenAPI 3, as
 * Etsy's Open API v3) kept in the connector's test fixtures. A request the document does not
 * allow (an unknown operation or parameter, a value outside its type, enum or bounds, a body
 * field it does not declare, a scope the operation needs and the token lacks) is a violation:
 * the fake answers it as the platform would answer a bad request, and the test fails.
 *
 * Deliberately small: the JSON Schema keywords these documents use for parameters and request
 * bodies (JSON, form-encoded or multipart; type, nullable, enum, bounds, lengths, pattern, date-time, binary, items, properties,
 * required, additionalProperties, allOf/anyOf/oneOf, local $ref). Response bodies are not checked
 * here: the golden corpus runs the platforms' own examples through the mappers instead.
 */

type Json = Record<string, any>;

/** A request as the fake received it. */
export interface ContractRequest {
  method: string;
  /** The path without the origin, with no query. */
  path: string;
  query: URLSearchParams;
  /** The raw body, when there is one. */
  body?: string | undefined;
  /**
   * A `multipart/form-data` body as the fake read it (`await request.formData()`): its text fields are checked like a
   * form's, its files against the fields the contract declares `format: binary`.
   */
  multipart?: FormData | undefined;
  contentType?: string | undefined;
  /** The OAuth scopes the request's token was granted; unchecked when absent. */
  scopes?: readonly string[] | undefined;
}

export interface ContractVerdict {
  /** The operation the request matched (null: none). */
  operationId: string | null;
  /** What the contract does not allow; empty when the request conforms. */
  violations: string[];
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  op: Json;
  pathParams: Json[];
}

export class OpenApiContract {
  readonly #doc: Json;
  readonly #name: string;
  readonly #operations: Operation[] = [];
  readonly #swagger2: boolean;

  /** `name` says whose contract it is in messages (`Amazon orders 2026-01-01`). */
  constructor(doc: object, name: string) {
    this.#doc = doc as Json;
    this.#name = name;
    this.#swagger2 = typeof this.#doc.swagger === 'string';
    const base =
      this.#swagger2 && typeof this.#doc.basePath === 'string' && this.#doc.basePath !== '/' ? this.#doc.basePath : '';
    for (const [template, item] of Object.entries<Json>(this.#doc.paths ?? {})) {
      const names: string[] = [];
      const pattern = new RegExp(
        `^${(base + template).replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, n: string) => (names.push(n), '([^/]+)'))}$`,
      );
      for (const [method, op] of Object.entries<Json>(item)) {
        if (['get', 'post', 'put', 'patch', 'delete'].includes(method))
          this.#operations.push({
            method: method.toUpperCase(),
            template,
            pattern,
            names,
            op,
            pathParams: item.parameters ?? [],
          });
      }
    }
  }

  /** The operations the document declares: `GET /orders/2026-01-01/orders searchOrders`. */
  operations(): string[] {
    return this.#operations.map((o) => `${o.method} ${o.template} ${o.op.operationId}`);
  }

  /** Whether the document has an operation for this method and path. */
  has(method: string, path: string): boolean {
    return this.#find(method, path) !== null;
  }

  check(req: ContractRequest): ContractVerdict {
    const found = this.#find(req.method, req.path);
    if (!found) return { operationId: null, violations: [`${this.#name}: no operation ${req.method} ${req.path}`] };
    const { operation, pathValues } = found;
    const id = String(operation.op.operationId ?? `${operation.method} ${operation.template}`);
    const v: string[] = [];
    const at = (msg: string) => v.push(`${this.#name} ${id}: ${msg}`);
    const params = this.#parameters(operation);
    for (const p of params.filter((p) => p.in === 'path'))
      this.#value(pathValues[p.name] ?? '', p, `path ${p.name}`, at);
    const query = params.filter((p) => p.in === 'query');
    for (const name of new Set(req.query.keys())) {
      const p = query.find((q) => q.name === name);
      if (!p) at(`query parameter ${name} is not in the contract`);
      else this.#queryValue(req.query.getAll(name), p, at);
    }
    for (const p of query)
      if (p.required && !req.query.has(p.name)) at(`required query parameter ${p.name} is missing`);
    this.#body(operation, params, req, at);
    if (req.scopes) this.#scopes(operation, req.scopes, at);
    return { operationId: id, violations: v };
  }

  #find(method: string, path: string): { operation: Operation; pathValues: Record<string, string> } | null {
    for (const operation of this.#operations) {
      if (operation.method !== method.toUpperCase()) continue;
      const m = operation.pattern.exec(path);
      if (!m) continue;
      return {
        operation,
        pathValues: Object.fromEntries(operation.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])),
      };
    }
    return null;
  }

  #parameters(operation: Operation): Json[] {
    const own = (operation.op.parameters ?? []).map((p: Json) => this.#deref(p));
    const inherited = operation.pathParams
      .map((p) => this.#deref(p))
      .filter((p) => !own.some((o: Json) => o.name === p.name && o.in === p.in));
    return [...own, ...inherited];
  }

  /** A parameter's own schema (OpenAPI 3: `schema`; Swagger 2: the parameter itself). */
  #schemaOf(p: Json): Json {
    return this.#deref(p.schema ?? p);
  }

  #queryValue(values: string[], p: Json, at: (m: string) => void): void {
    const schema = this.#schemaOf(p);
    if (schema.type !== 'array') {
      if (values.length > 1) at(`query parameter ${p.name} is given ${values.length} times`);
      this.#value(values[0]!, p, `query ${p.name}`, at);
      return;
    }
    // Swagger 2: collectionFormat (csv by default; multi repeats the name); OpenAPI 3: style form, explode true by
    // default.
    const multi = this.#swagger2 ? p.collectionFormat === 'multi' : p.explode !== false;
    const sep =
      p.collectionFormat === 'pipes'
        ? '|'
        : p.collectionFormat === 'ssv'
          ? ' '
          : p.collectionFormat === 'tsv'
            ? '\t'
            : ',';
    const items = multi && values.length > 1 ? values : values.flatMap((s) => s.split(sep));
    this.#check(
      items.map((s) => coerce(s, this.#deref(schema.items ?? {}))),
      schema,
      `query ${p.name}`,
      at,
    );
  }

  #value(raw: string, p: Json, where: string, at: (m: string) => void): void {
    const schema = this.#schemaOf(p);
    this.#check(coerce(raw, schema), schema, where, at);
  }

  #body(operation: Operation, params: Json[], req: ContractRequest, at: (m: string) => void): void {
    const hasBody = req.body !== undefined && req.body !== '';
    const type = (req.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    let schema: Json | undefined;
    let required = false;
    let types: string[];
    if (this.#swagger2) {
      const bodyParam = params.find((p) => p.in === 'body');
      const formParams = params.filter((p) => p.in === 'formData');
      types = operation.op.consumes ?? this.#doc.consumes ?? ['application/json'];
      if (bodyParam) (schema = this.#deref(bodyParam.schema ?? {})), (required = !!bodyParam.required);
      else if (formParams.length > 0)
        schema = {
          type: 'object',
          required: formParams.filter((p) => p.required).map((p) => p.name),
          properties: Object.fromEntries(formParams.map((p) => [p.name, p])),
          additionalProperties: false,
        };
    } else {
      const rb = operation.op.requestBody ? this.#deref(operation.op.requestBody) : undefined;
      types = Object.keys(rb?.content ?? {});
      required = !!rb?.required;
      schema = rb?.content?.[type]?.schema ? this.#deref(rb.content[type].schema) : undefined;
    }
    if (!hasBody) {
      if (required) at('the request body is required');
      return;
    }
    if (!schema && types.length === 0) return void at('the operation takes no request body');
    if (!types.includes(type)) return void at(`content type ${type || '(none)'} is not one of ${types.join(', ')}`);
    if (!schema) return;
    let value: unknown;
    if (type === 'multipart/form-data') {
      if (!req.multipart) return void at('the multipart body could not be read');
      value = this.#multipartValue(req.multipart, schema, at);
    } else if (type === 'application/x-www-form-urlencoded') {
      const form = new URLSearchParams(req.body);
      value = Object.fromEntries(
        [...form.keys()].map((k) => [k, coerce(form.get(k)!, this.#deref(schema.properties?.[k] ?? {}))]),
      );
    } else {
      try {
        value = JSON.parse(req.body!);
      } catch {
        return void at('the request body is not JSON');
      }
    }
    this.#check(value, schema, 'body', at);
  }

  /**
   * The multipart fields as a form's values: a file stands where the contract declares a binary string (and only
   * there), text fields are coerced to their schema's type; a field given twice is a violation.
   */
  #multipartValue(form: FormData, schema: Json, at: (m: string) => void): Record<string, unknown> {
    const value: Record<string, unknown> = {};
    for (const name of new Set(form.keys())) {
      const all = form.getAll(name);
      if (all.length > 1) at(`body.${name} is given ${all.length} times`);
      const part = all[0]!;
      const declared = this.#deref(schema.properties?.[name] ?? {});
      const binary = declared.type === 'string' && declared.format === 'binary';
      if (typeof part !== 'string') {
        if (binary || !schema.properties?.[name]) value[name] = binary ? '' : part;
        else at(`body.${name} is a file, where the contract declares ${declared.type ?? 'a value'}`);
      } else if (binary) at(`body.${name} must be a file (format binary), not a text field`);
      else value[name] = coerce(part, declared);
    }
    return value;
  }

  #scopes(operation: Operation, granted: readonly string[], at: (m: string) => void): void {
    const security: Json[] = operation.op.security ?? this.#doc.security ?? [];
    const oauth = Object.entries<Json>(this.#doc.components?.securitySchemes ?? this.#doc.securityDefinitions ?? {})
      .filter(([, s]) => s.type === 'oauth2')
      .map(([n]) => n);
    const needs = security.map((req) => oauth.flatMap((n) => (req[n] as string[] | undefined) ?? []));
    if (needs.length === 0 || needs.some((scopes) => scopes.every((s) => granted.includes(s)))) return;
    at(
      `the token lacks the OAuth scope ${needs.map((s) => s.filter((x) => !granted.includes(x)).join(' ')).join(' or ')} (granted: ${granted.join(' ') || 'none'})`,
    );
  }

  #deref(node: Json): Json {
    let n = node;
    for (let i = 0; n && typeof n.$ref === 'string' && i < 20; i++) {
      if (!n.$ref.startsWith('#/')) throw new Error(`${this.#name}: only local $ref are followed (${n.$ref})`);
      n = n.$ref
        .slice(2)
        .split('/')
        .reduce((o: Json, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.#doc);
      if (!n) throw new Error(`${this.#name}: unresolved $ref ${node.$ref}`);
    }
    return n;
  }

  #check(value: unknown, raw: Json, where: string, at: (m: string) => void): void {
    const s = this.#deref(raw);
    if (value === null) {
      if (!(s.nullable || (Array.isArray(s.type) && s.type.includes('null')) || s['x-nullable']))
        at(`${where} must not be null`);
      return;
    }
    for (const part of s.allOf ?? []) this.#check(value, part, where, at);
    for (const key of ['anyOf', 'oneOf'] as const) {
      if (!s[key]) continue;
      const fits = (s[key] as Json[]).filter((alt) => {
        const inner: string[] = [];
        this.#check(value, alt, where, (m) => inner.push(m));
        return inner.length === 0;
      });
      if (fits.length === 0 || (key === 'oneOf' && fits.length > 1))
        at(`${where} matches ${fits.length} of the ${key} alternatives`);
    }
    const types: string[] = (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []).filter(
      (t: string) => t !== 'null',
    );
    if (types.length > 0 && !types.some((t) => isType(value, t)))
      return void at(`${where} must be ${types.join(' or ')}, got ${JSON.stringify(value)}`);
    if (s.enum && !s.enum.includes(value))
      at(`${where} value ${JSON.stringify(value)} is not one of ${s.enum.join(', ')}`);
    if (typeof value === 'number') {
      if (typeof s.minimum === 'number' && value < s.minimum) at(`${where} ${value} is below ${s.minimum}`);
      if (typeof s.maximum === 'number' && value > s.maximum) at(`${where} ${value} is above ${s.maximum}`);
    }
    if (typeof value === 'string') {
      if (typeof s.minLength === 'number' && value.length < s.minLength) at(`${where} is shorter than ${s.minLength}`);
      if (typeof s.maxLength === 'number' && value.length > s.maxLength) at(`${where} is longer than ${s.maxLength}`);
      if (s.pattern && !new RegExp(s.pattern, 'u').test(value))
        at(`${where} ${JSON.stringify(value)} does not match ${s.pattern}`);
      if (s.format === 'date-time' && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value))
        at(`${where} ${JSON.stringify(value)} is not an RFC 3339 date-time`);
    }
    if (Array.isArray(value)) {
      if (typeof s.minItems === 'number' && value.length < s.minItems)
        at(`${where} has fewer than ${s.minItems} items`);
      if (typeof s.maxItems === 'number' && value.length > s.maxItems) at(`${where} has more than ${s.maxItems} items`);
      if (s.items) value.forEach((item, i) => this.#check(item, s.items, `${where}[${i}]`, at));
    }
    if (
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      (s.properties || s.required || s.additionalProperties !== undefined)
    ) {
      const props: Json = s.properties ?? {};
      const declared = new Set([
        ...Object.keys(props),
        ...(s.allOf ?? []).flatMap((p: Json) => Object.keys(this.#deref(p).properties ?? {})),
      ]);
      for (const name of s.required ?? []) if (!(name in value)) at(`${where}.${name} is required`);
      for (const [name, v] of Object.entries(value)) {
        if (props[name]) this.#check(v, props[name], `${where}.${name}`, at);
        else if (typeof s.additionalProperties === 'object')
          this.#check(v, s.additionalProperties, `${where}.${name}`, at);
        else if (s.additionalProperties !== true && !declared.has(name))
          at(`${where}.${name} is not a field the contract declares`);
      }
    }
  }
}

function isType(v: unknown, t: string): boolean {
  if (t === 'integer') return typeof v === 'number' && Number.isInteger(v);
  if (t === 'number') return typeof v === 'number' && Number.isFinite(v);
  if (t === 'array') return Array.isArray(v);
  if (t === 'object') return typeof v === 'object' && v !== null && !Array.isArray(v);
  return typeof v === t;
}

/**
 * A query, path or form value as its schema's type (left a string when it does not parse: the type check then fails).
 */
function coerce(raw: string, schema: Json): unknown {
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  if (type === 'integer' || type === 'number') return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  if (type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

/** Collects the violations a fake saw, so a suite can also assert none at its end. */
export class ContractLog {
  readonly violations: string[] = [];

  /** Checks `req` against `contract`; answers the violations (also kept). */
  record(contract: OpenApiContract, req: ContractRequest): string[] {
    const { violations } = contract.check(req);
    this.violations.push(...violations);
    if (violations.length > 0 && process.env.CONTRACT_DEBUG) process.stderr.write(`${violations.join('\n')}\n`);
    return violations;
  }
}
