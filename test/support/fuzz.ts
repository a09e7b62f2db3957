import fc from 'fast-check';
import qs from 'qs';
import type { OpenApiDocument } from '../../src/rest/openapi';

/**
 * Hostile REST requests generated from the OpenAPI document (schema/openapi.json) with fast-check:
 * every documented path and method, parameters and bodies built from their schemas, mixed with values
 * meant to break things (lone surrogates, NUL, numbers past 2^31 and 2^53, deep and wide JSON, type
 * confusion, broken JSON). Used by test/rest/fuzz.test.ts (small budget) and scripts/fuzz.ts (10,000+
 * requests against a running service).
 */
export interface FuzzRequest {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** Path under the document's server, e.g. `/v1/leads/…`, with its query string. */
  url: string;
  /** The documented path template, for reports. */
  route: string;
  headers: Record<string, string>;
  /** Raw body text (JSON or not). */
  body?: string;
}

export interface FuzzWorld {
  /** API keys to pick from (each role); a missing or bogus key is also generated. */
  keys: string[];
  /** Ids of existing records (any resource, in and out of every caller's scope). */
  ids: string[];
  /** Company ids for the store locator. */
  companyIds: string[];
}

type Schema = Record<string, any>;

const LONE_SURROGATES = ['\ud800', 'a\udc00b', '\udbff', `x${'\ud83d'}`];
const HOSTILE_STRINGS = [
  ...LONE_SURROGATES,
  'a\u0000b',
  '',
  ' ',
  'null',
  '*',
  '%',
  '\\',
  "'; drop table leads; --",
  '<script>alert(1)</script>',
  '-1',
  '0',
  '2147483648',
  '9007199254740993',
  '1e309',
  'NaN',
  '😀'.repeat(200),
  'x'.repeat(5000),
  'constructor',
  '__proto__',
  '00000000-0000-0000-0000-000000000000',
];
const HOSTILE_NUMBERS = [0, -1, -0, 1.5, 2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53 + 2, 1e308, -1e308, Number.MIN_VALUE];

/** JSON nested `depth` levels (generated as values: bodies are written with a non-recursive writer). */
const deep = (depth: number, key: string): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = key === '[]' ? [v] : { [key]: v };
  // fast-check's printer recurses: a counterexample names the depth instead.
  return Object.assign(v as object, { [fc.toStringMethod]: () => `<JSON ${depth} levels deep under ${key}>` });
};

/** Hostile values that fit in a query string (qs writes recursively). */
const hostileShallow: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(...HOSTILE_STRINGS), weight: 4 },
  { arbitrary: fc.constantFrom(...HOSTILE_NUMBERS), weight: 2 },
  { arbitrary: fc.constantFrom(null, true, false, [], {}), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 2 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
);

/** Hostile values for bodies: also JSON thousands of levels deep and long lists. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileShallow, weight: 12 },
  { arbitrary: fc.tuple(fc.integer({ min: 15, max: 6000 }), fc.constantFrom('a', '_not', '[]')).map(([d, k]) => deep(d, k)), weight: 1 },
  { arbitrary: fc.integer({ min: 50, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => ({ n: i }))), weight: 1 },
);

export class FuzzGenerator {
  constructor(
    private readonly doc: OpenApiDocument,
    private readonly world: FuzzWorld,
  ) {}

  private resolve(schema: Schema | undefined): Schema {
    let s = schema ?? {};
    for (let i = 0; s.$ref && i < 10; i++) s = this.doc.components.schemas![s.$ref.replace('#/components/schemas/', '')] as Schema;
    return s;
  }

  private resolveParameter(p: Schema): Schema {
    return p.$ref ? (this.doc.components as any).parameters[p.$ref.replace('#/components/parameters/', '')] : p;
  }

  private id(): fc.Arbitrary<string> {
    return fc.oneof(
      { arbitrary: fc.constantFrom(...this.world.ids), weight: 6 },
      { arbitrary: fc.uuid(), weight: 2 },
      { arbitrary: fc.constantFrom('not-a-uuid', '1', '%00', 'x'.repeat(300), '\u00e9t\u00e9'), weight: 1 },
    );
  }

  /** A value for `schema`, usually of its type, sometimes hostile. */
  value(schema: Schema | undefined, depth = 0, hostile = hostileValue): fc.Arbitrary<unknown> {
    return fc.oneof({ arbitrary: this.typed(this.resolve(schema), depth, hostile), weight: 7 }, { arbitrary: hostile, weight: 1 });
  }

  /** A value of the schema's type; its variants' hostile values are `hostile` too (a query string's stay shallow). */
  private typed(s: Schema, depth: number, hostile: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
    const variants = s.oneOf ?? s.anyOf;
    if (variants) return fc.oneof(...variants.map((v: Schema) => this.value(v, depth + 1, hostile)));
    if (s.enum) return fc.constantFrom(...s.enum);
    const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
    switch (type) {
      case 'object': {
        const props: Record<string, Schema> = s.properties ?? {};
        if (!Object.keys(props).length || depth > 4) return fc.jsonValue({ maxDepth: 3 });
        const record = fc.record(
          Object.fromEntries(Object.entries(props).map(([k, v]) => [k, this.value(v, depth + 1)])),
          { requiredKeys: [] },
        );
        // Unknown keys beside the documented ones.
        return fc.tuple(record, fc.dictionary(fc.constantFrom('unknown', 'id', '_destroy', 'type', 'constructor'), hostileValue, { maxKeys: 1 })).map(([a, b]) => ({ ...b, ...a }));
      }
      case 'array':
        return fc.array(this.value(s.items, depth + 1, hostile), { maxLength: 4 });
      case 'string':
        if (s.format === 'uuid') return this.id();
        if (s.format === 'email') return fc.oneof(fc.emailAddress(), fc.constantFrom('ada@example.com', 'not-an-email'));
        if (s.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
        return fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('New', 'Portland', 'US', 'OR', '97205', 'LeadActivity::QuoteRequest', 'LeadActivity::Note', '+15035550100'));
      case 'integer':
        return fc.oneof(fc.integer({ min: -2, max: 1000 }), fc.constantFrom(...HOSTILE_NUMBERS));
      case 'number':
        return fc.oneof(fc.double({ min: -200, max: 200, noNaN: true }), fc.constantFrom(...HOSTILE_NUMBERS));
      case 'boolean':
        return fc.boolean();
      default:
        return fc.jsonValue({ maxDepth: 3 });
    }
  }

  /** `opts[...]` of a list: page, per_page, order, where (with _or/_and/_not) and aggs. */
  private opts(): fc.Arbitrary<Record<string, unknown>> {
    const field = fc.constantFrom('status', 'name', 'city', 'created_at', 'id', 'sku', 'email', 'type', 'lead_id', 'sending_leads', 'nope', 'constructor');
    const op = fc.constantFrom('gt', 'gte', 'lt', 'lte', 'not', 'in', 'all', 'exists', 'prefix', 'like', 'ilike', 'bogus');
    const scalar = fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom(...HOSTILE_STRINGS.slice(0, 18), 'null', '2026-01-01', 'true'));
    const where = fc.letrec<{ w: Record<string, unknown> }>((tie) => ({
      w: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.dictionary(field, fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(op, scalar, { maxKeys: 2 })), { maxKeys: 3 }),
        fc.record({ _or: fc.array(tie('w'), { maxLength: 3 }) }),
        fc.record({ _and: fc.array(tie('w'), { maxLength: 3 }) }),
        fc.record({ _not: tie('w') }),
      ),
    })).w;
    const number = fc.oneof(fc.integer({ min: -1, max: 30 }).map(String), fc.constantFrom('2147483647', '2147483648', '4294967296', '9007199254740991', '9007199254740993', '1e3', 'x', '1.5', 'null'));
    return fc.record(
      {
        page: number,
        per_page: number,
        order: fc.oneof(field, fc.dictionary(field, fc.constantFrom('asc', 'desc', 'sideways'), { maxKeys: 2 })),
        where,
        aggs: fc.oneof(
          fc.array(field, { maxLength: 4 }),
          fc.dictionary(field, fc.record({ limit: number, min_doc_count: number }, { requiredKeys: [] }), { maxKeys: 2 }),
          fc.integer({ min: 21, max: 700 }).map((n) => Array.from({ length: n }, (_, i) => `f${i}`)),
        ),
      },
      { requiredKeys: [] },
    );
  }

  private queryString(op: Schema, isList: boolean): fc.Arbitrary<string> {
    const params = (op.parameters ?? []).map((p: Schema) => this.resolveParameter(p)).filter((p: Schema) => p.in === 'query' && p.name !== 'opts');
    const entries = fc.record(
      Object.fromEntries(
        params.map((p: Schema) => {
          if (p.name === 'q') return [p.name, fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('*', 'ada portland', ...HOSTILE_STRINGS), fc.integer({ min: 30, max: 3000 }).map((n) => 'w '.repeat(n)))];
          if (p.name === 'include') return [p.name, fc.constantFrom('*', '', 'emails,phone_numbers', 'lead,lead_activities', 'nope', ',,,')];
          if (p.name === 'cc_id') return [p.name, fc.oneof(fc.constantFrom(...this.world.companyIds), fc.uuid(), fc.constantFrom('x'))];
          if (p.name === 'latitude' || p.name === 'longitude') return [p.name, fc.oneof(fc.double({ min: -100, max: 190, noNaN: true }).map(String), fc.constantFrom(...HOSTILE_STRINGS))];
          const s = this.resolve(p.schema);
          return [p.name, s.type === 'array' ? fc.array(this.value(s.items, 5, hostileShallow), { maxLength: 3 }) : this.value(s, 5, hostileShallow)];
        }),
      ),
      { requiredKeys: [] },
    );
    const opts = isList ? fc.option(this.opts(), { nil: undefined }) : fc.constant(undefined);
    // Beyond Node's 16 KB of headers the answer is the HTTP layer's 431, not the service's.
    return fc
      .tuple(entries, opts)
      .map(([e, o]) => qs.stringify(o === undefined ? e : { ...e, opts: o }, { arrayFormat: 'brackets', encodeValuesOnly: false, allowDots: false }))
      .filter((query) => query.length < 8000);
  }

  private body(op: Schema): fc.Arbitrary<string | undefined> {
    const schema = op.requestBody?.content?.['application/json']?.schema;
    if (!schema) return fc.constant(undefined);
    return fc.oneof(
      { arbitrary: this.value(schema).map((v) => writeJson(v)), weight: 12 },
      { arbitrary: fc.constantFrom('{', '[]', 'null', '"x"', '{"a":', '\u0000', '{"lead":{"name":"\\ud800"}}', '1e99999'), weight: 1 },
    );
  }

  /** One request to any documented operation. */
  request(): fc.Arbitrary<FuzzRequest> {
    const base = (this.doc.servers?.[0]?.url ?? '/v1').replace(/^https?:\/\/[^/]+/, '').replace(/\/$/, '');
    const operations: Array<{ route: string; method: FuzzRequest['method']; op: Schema }> = [];
    for (const [route, item] of Object.entries(this.doc.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, Schema>)) {
        if (['get', 'post', 'patch', 'put', 'delete'].includes(method)) operations.push({ route, method: method as FuzzRequest['method'], op });
      }
    }
    const key = fc.oneof({ arbitrary: fc.constantFrom(...this.world.keys), weight: 8 }, { arbitrary: fc.constantFrom(undefined, 'bogus', 'id:lnk_notakeynotakeynotakey'), weight: 1 });
    return fc.constantFrom(...operations).chain(({ route, method, op }) => {
      const isList = method === 'get' && !route.includes('{');
      return fc
        .record({ id: this.id(), query: this.queryString(op, isList), body: this.body(op), key, cc: fc.option(fc.constantFrom(...this.world.companyIds, 'x'), { nil: undefined }) })
        .map(({ id, query, body, key: k, cc }) => {
          const path = `${base}${route.replace('{id}', encodeURIComponent(id))}`;
          const headers: Record<string, string> = { accept: 'application/json' };
          if (k) headers['x-api-key'] = k;
          if (cc && route.startsWith('/store_locator')) headers['x-cc-id'] = cc;
          if (body !== undefined) headers['content-type'] = 'application/json';
          return { method, route, url: query ? `${path}?${query}` : path, headers, body };
        });
    });
  }
}

/** Text written as is by `writeJson`. */
class Raw {
  constructor(readonly text: string) {}
}

/** JSON.stringify without recursion (deeply nested values are written iteratively). */
export function writeJson(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v instanceof Raw) {
      out.push(v.text);
    } else if (Array.isArray(v)) {
      out.push('[');
      stack.push(new Raw(']'));
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push(v[i] === undefined ? null : v[i]);
        if (i > 0) stack.push(new Raw(','));
      }
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      out.push('{');
      stack.push(new Raw('}'));
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push(entries[i][1]);
        stack.push(new Raw(`${JSON.stringify(entries[i][0])}:`));
        if (i > 0) stack.push(new Raw(','));
      }
    } else {
      out.push(JSON.stringify(v) ?? 'null');
    }
  }
  return out.join('');
}
