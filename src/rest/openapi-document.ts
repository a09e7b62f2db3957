import fs from 'node:fs';
import path from 'node:path';
import { parse, type DefinitionNode, type GraphQLSchema } from 'graphql';
import { LIMITS } from '../limits';
import { WHERE_OPERATORS } from '../search/where';
import { clientFields, DEFAULT_PER_PAGE, MAX_PER_PAGE, type SearchDocument } from '../search/types';
import type { ListDocuments, OpenApiDocument } from './openapi';
import type { RestResource } from './resource';
import { RecordSchemas } from './openapi-records';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_TTL_HOURS, MAX_IDEMPOTENCY_KEY_LENGTH, REPLAYED_HEADER, STILL_RUNNING } from './idempotency';

/**
 * The generator of `schema/openapi.json` (`npm run openapi:emit`). What the code already knows is
 * generated: each resource's paths, methods, operation ids, summaries, parameters, request bodies and
 * responses (from its `RestResource`: path, operations, associations, root and plural keys), the list
 * envelopes, each record schema (the keys its show operation answers, typed and described by the
 * GraphQL fields they read: src/rest/openapi-records.ts), the fields each list filters, orders and
 * aggregates on (from its search document), the filter operators and the bounds of `q` and `opts`
 * (src/search/where.ts, src/limits.ts) and enums named in the prose (`"enum": "$Name"`). What only a
 * writer knows (descriptions, examples, per field constraints GraphQL cannot state, the input schemas
 * of the existing resources, the store locator's hand-made routes) is data in `openapi.prose.json`,
 * merged in; a resource it does not mention gets defaults.
 */

/** The hand-written part of the document, merged by the generator. */
export interface OpenApiProse {
  openapi: string;
  info: OpenApiDocument['info'];
  servers: NonNullable<OpenApiDocument['servers']>;
  security: NonNullable<OpenApiDocument['security']>;
  tags: Array<{ name: string; description: string }>;
  /** Per operation id: its description and its request body's examples. */
  operations: Record<string, { description?: string; examples?: Record<string, unknown> }>;
  /**
   * Per GraphQL field (`Email.email`), the JSON Schema keywords its REST keys add to what the field's
   * type says (`format`, `enum`, `const`, `minimum`, a narrower `type`).
   */
  fields?: Record<string, Record<string, unknown>>;
  /** Paths no `RestResource` describes (the store locator). */
  paths: OpenApiDocument['paths'];
  components: OpenApiDocument['components'];
}

/** One /v1 resource as the document describes it. */
export interface OpenApiResource {
  rest: RestResource;
  /** The search document its list reads (`q`, `opts[where]`, `opts[order]`, `opts[aggs]`). */
  search?: SearchDocument;
}

export interface OpenApiInputs {
  prose: OpenApiProse;
  /** The GraphQL schema the REST documents run against: each record's types, nullability and descriptions. */
  schema: GraphQLSchema;
  /** The definitions of the REST documents (`*.rest.graphql`): which keys a record has. */
  documents: readonly DefinitionNode[];
  resources: readonly OpenApiResource[];
  /** Values of the enums the prose names as `"enum": "$Name"`. */
  enums: Record<string, readonly string[]>;
}

export const OPENAPI_PROSE_PATH = path.join(__dirname, 'openapi.prose.json');

/** The definitions of these REST document files, parsed (they are validated at start, not here). */
export function readDocuments(files: readonly string[]): DefinitionNode[] {
  return files.flatMap((file) => parse(fs.readFileSync(file, 'utf8')).definitions);
}

export function readProse(file = OPENAPI_PROSE_PATH): OpenApiProse {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as OpenApiProse;
}

const ref = (kind: 'schemas' | 'parameters' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const responses = (codes: number[]) => Object.fromEntries(codes.map((code) => [String(code), ref('responses', RESPONSE[code])]));
const number = (n: number) => n.toLocaleString('en-US');

const RESPONSE: Record<number, string> = {
  204: 'NoContent',
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'IdempotencyConflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableEntity',
  429: 'TooManyRequests',
  503: 'ServiceUnavailable',
};

/** The error statuses of each kind of operation (SPEC 4.2's table, plus 429 and 503 everywhere). */
const ERRORS = {
  list: [400, 401, 403, 429, 503],
  show: [400, 401, 403, 404, 429, 503],
  create: [400, 401, 403, 409, 413, 415, 422, 429, 503],
  update: [400, 401, 403, 404, 409, 413, 415, 422, 429, 503],
  destroy: [400, 401, 403, 404, 409, 422, 429, 503],
  action: [400, 401, 403, 404, 409, 413, 415, 422, 429, 503],
};

/** `company_retailer_locations` -> `Company Retailer Locations`. */
const titleCase = (snake: string) => snake.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
const words = (snake: string) => snake.replace(/_/g, ' ');
const lowerFirst = (s: string) => s[0].toLowerCase() + s.slice(1);

/** The whole document: the prose with the generated parts merged in. */
export function generateOpenApi({ prose, schema, documents, resources, enums }: OpenApiInputs): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const lists: Record<string, unknown> = {};
  const written: Record<string, any> = structuredClone(prose.components.schemas ?? {});
  const records = new RecordSchemas(schema, documents, prose.fields);
  const inputs = new RecordSchemas(schema, documents);
  for (const resource of resources) {
    const name = schemaName(resource.rest);
    if (resource.rest.operations.list) lists[`${name}List`] = listSchema(resource.rest);
    if (resource.rest.operations.show) records.addRecord(name, resource.rest.operations.show);
    // A resource the prose does not describe gets its body and input from the GraphQL input type.
    if (resource.rest.operations.create || resource.rest.operations.update || resource.rest.operations.replace) {
      if (!written[`${name}Body`]) written[`${name}Body`] = bodySchema(resource.rest);
      if (!written[resource.rest.inputType]) inputs.addInput(resource.rest.inputType, resource.rest.inputType);
    }
    if (resource.rest.operations.create && resource.rest.batch) Object.assign(lists, batchSchemas(resource.rest, resource.rest.batch));
    for (const action of resource.rest.actions ?? []) if (action.inputType && !action.body && !written[action.inputType]) inputs.addInput(action.inputType, action.inputType);
  }
  const unknown = records.unknownRefinements();
  if (unknown.length) throw new Error(`openapi.prose.json refines ${unknown.join(', ')}, which the GraphQL schema does not have`);
  // The prose's schemas in its order, each derived one refined by what the prose adds; then the rest.
  const schemas: Record<string, any> = {};
  for (const [name, prose] of Object.entries(written)) {
    const derived = records.schemas.get(name);
    schemas[name] = derived ? refined(name, derived, prose) : prose;
  }
  for (const [name, derived] of [...records.schemas, ...inputs.schemas]) schemas[name] ??= derived;
  const taken = new Set((prose.tags ?? []).map((t) => t.name));
  const tags = [
    ...prose.tags,
    ...resources
      .map(({ rest }) => ({ name: titleCase(rest.plural), description: records.schemas.get(schemaName(rest))?.description }))
      .filter((t) => !taken.has(t.name))
      .map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}) })),
  ];
  for (const resource of resources) Object.assign(paths, resourcePaths(resource, prose, schemas));
  const components: OpenApiDocument['components'] = withEnums({ ...structuredClone(prose.components), schemas }, enums);
  const document = {
    openapi: prose.openapi,
    info: prose.info,
    servers: prose.servers,
    security: prose.security,
    tags,
    paths: { ...paths, ...structuredClone(prose.paths) },
    components: {
      ...components,
      parameters: { ...components.parameters, q: queryParameter(), opts: optsParameter(), IdempotencyKey: idempotencyKeyParameter() },
      headers: { ...components.headers, IdempotentReplayed: replayedHeader() },
      responses: { ...components.responses, IdempotencyConflict: idempotencyConflict() },
      schemas: { ...components.schemas, ...lists },
    },
  } as OpenApiDocument;
  unresolved(document);
  return document;
}

/**
 * A derived record schema with what only the prose knows: its `description` and `examples`. Keys,
 * types and nullability come from the REST operation and the GraphQL schema (per field refinements
 * are the prose's `fields`).
 */
function refined(name: string, derived: Record<string, any>, prose: Record<string, any>): Record<string, any> {
  const fixed = Object.keys(prose).filter((k) => k !== 'description' && k !== 'examples');
  if (fixed.length) {
    throw new Error(`${name}: its ${fixed.join(', ')} come from its REST operation and the GraphQL schema; openapi.prose.json may add a description, examples and per field refinements (fields)`);
  }
  return { ...derived, ...prose };
}

/** The create and update body of a resource the prose does not describe: its record under the root key. */
function bodySchema(rest: RestResource) {
  return {
    type: 'object',
    description: `The ${words(rest.root)} under the root key \`${rest.root}\`.`,
    required: [rest.root],
    properties: { [rest.root]: ref('schemas', rest.inputType) },
  };
}

/** Every `#/components/...` reference of the document names something in it. */
function unresolved(document: OpenApiDocument): void {
  const missing = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const [, kind, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(value) ?? [];
        if (!kind || !document.components[kind]?.[name]) missing.add(value);
      } else visit(value);
    }
  };
  visit(document);
  if (missing.size) throw new Error(`OpenAPI: ${[...missing].join(', ')} named but not defined (openapi.prose.json or a REST operation)`);
}

/** The committed file's text. */
export function renderOpenApi(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** `LeadInput` -> `Lead`: the schema of the resource's records. */
function schemaName(rest: RestResource): string {
  return rest.inputType.replace(/Input$/, '');
}

function resourcePaths({ rest, search }: OpenApiResource, prose: OpenApiProse, schemas: Record<string, unknown>): OpenApiDocument['paths'] {
  const ops = rest.operations;
  const tag = titleCase(rest.plural);
  const noun = words(rest.root);
  const record = ref('schemas', schemaName(rest));
  // An update body of its own when the prose defines one (`LeadUpdateBody`), else the create body.
  const body = (kind: 'create' | 'update') =>
    kind === 'update' && schemas[`${schemaName(rest)}UpdateBody`] ? `${schemaName(rest)}UpdateBody` : `${schemaName(rest)}Body`;
  const include = includeParameter(rest.associations ?? []);
  const operation = (name: string, summary: string, fields: Record<string, unknown>, errors: number[], success: Record<string, unknown>) => {
    const id = lowerFirst(name);
    const written = prose.operations[id] ?? {};
    return {
      tags: [tag],
      operationId: id,
      summary,
      ...(written.description ? { description: written.description } : {}),
      ...fields,
      responses: { ...success, ...responses(errors) },
    };
  };
  const requestBody = (name: string, schema: string) => {
    const examples = prose.operations[lowerFirst(name)]?.examples;
    return { required: true, content: { 'application/json': { schema: ref('schemas', schema), ...(examples ? { examples } : {}) } } };
  };
  const idempotencyKey = ref('parameters', 'IdempotencyKey');
  const replayable = (response: Record<string, unknown>) => ({ ...response, headers: { [REPLAYED_HEADER]: ref('headers', 'IdempotentReplayed') } });
  const collection: Record<string, unknown> = {};
  const item: Record<string, unknown> = { parameters: [ref('parameters', 'id')] };
  const paths: OpenApiDocument['paths'] = {};
  if (ops.list) {
    const list = operation(
      ops.list,
      `List ${words(rest.plural)}`,
      { parameters: [ref('parameters', 'q'), include, ref('parameters', 'opts')] },
      ERRORS.list,
      { 200: { description: 'A page of results.', content: json(ref('schemas', `${schemaName(rest)}List`)) } },
    );
    collection.get = search ? withFields(list, search) : list;
  }
  if (ops.create) {
    collection.post = operation(
      ops.create,
      `Create a ${noun}`,
      { parameters: [include, idempotencyKey], requestBody: requestBody(ops.create, body('create')) },
      ERRORS.create,
      { 201: replayable({ description: `The created ${noun}.`, content: json(record) }) },
    );
  }
  if (ops.create && rest.batch) {
    const name = schemaName(rest);
    paths[`${rest.path}/batch`] = {
      post: operation(
        rest.batch.operation,
        `Create up to ${number(rest.batch.max)} ${words(rest.plural)}`,
        { parameters: [include, idempotencyKey], requestBody: requestBody(rest.batch.operation, `${name}BatchBody`) },
        ERRORS.create,
        { 200: replayable({ description: `One result per item, in order: each item's status and body as \`POST ${rest.path}\` would have answered it.`, content: json(ref('schemas', `${name}BatchResults`)) }) },
      ),
    };
  }
  if (ops.show) {
    item.get = operation(ops.show, `Show a ${noun}`, { parameters: [include] }, ERRORS.show, { 200: { description: `The ${noun}.`, content: json(record) } });
  }
  for (const [method, name, verb] of [
    ['patch', ops.update, 'Update'],
    ['put', ops.replace, 'Replace'],
  ] as const) {
    if (!name) continue;
    item[method] = operation(
      name,
      `${verb} a ${noun}`,
      { parameters: [include, idempotencyKey], requestBody: requestBody(name, body('update')) },
      ERRORS.update,
      { 200: replayable({ description: `The updated ${noun}.`, content: json(record) }) },
    );
  }
  if (ops.destroy) {
    item.delete = operation(ops.destroy, `Delete a ${noun}`, { parameters: [idempotencyKey] }, ERRORS.destroy, {
      204: replayable({ description: 'Deleted; empty body.' }),
    });
  }
  const actions: OpenApiDocument['paths'] = {};
  for (const action of rest.actions ?? []) {
    const body = action.body ?? action.inputType;
    const post = operation(
      action.operation,
      action.summary,
      { parameters: [include, idempotencyKey], ...(body ? { requestBody: requestBody(action.operation, body) } : {}) },
      [...new Set([...ERRORS.action, ...(action.errors ?? [])])].sort((a, b) => a - b),
      { 200: replayable({ description: `The ${noun}, as its show answers it.`, content: json(record) }) },
    );
    for (const [status, name] of Object.entries(action.responses ?? {})) (post.responses as Record<string, unknown>)[status] = ref('responses', name);
    actions[`${rest.path}/{id}/${action.name}`] = { parameters: [ref('parameters', 'id')], post };
  }
  return { [rest.path]: collection, ...paths, [`${rest.path}/{id}`]: item, ...actions };
}

/**
 * A batch's body (`{"<plural>": [<input>, ...]}`), its answer and the answer's items: each item's
 * status with the body its single create would have answered (the record, or the error envelope).
 */
function batchSchemas(rest: RestResource, batch: NonNullable<RestResource['batch']>): Record<string, unknown> {
  const name = schemaName(rest);
  return {
    [`${name}BatchBody`]: {
      type: 'object',
      description: `Up to ${number(batch.max)} ${words(rest.plural)} under the key \`${batch.root}\`, each what \`POST ${rest.path}\` takes under \`${rest.root}\`. A body without the list is 422 \`missing\`, an empty list \`too_short\`, more than ${number(batch.max)} items \`too_long\` (on \`${batch.root}\`, for the whole request).`,
      required: [batch.root],
      properties: { [batch.root]: { type: 'array', minItems: 1, maxItems: batch.max, items: ref('schemas', rest.inputType) } },
    },
    [`${name}BatchResults`]: {
      type: 'object',
      description: `One result per item of the request, in its order.`,
      required: ['results'],
      properties: { results: { type: 'array', items: ref('schemas', `${name}BatchResult`) } },
      additionalProperties: false,
    },
    [`${name}BatchResult`]: {
      type: 'object',
      description: `One item's answer: \`status\` and \`body\` are what \`POST ${rest.path}\` with that item would have answered (201 and the ${words(rest.root)}, also when it merged into a duplicate; or 403, 422 and their envelopes). An item's failure leaves the others written.`,
      required: ['status', 'body'],
      properties: {
        status: { type: 'integer', examples: [201, 422] },
        body: {
          anyOf: [ref('schemas', name), ref('schemas', 'UnprocessableEntityError'), ref('schemas', 'ForbiddenError'), ref('schemas', 'Error')],
        },
      },
      additionalProperties: false,
    },
  };
}

function idempotencyKeyParameter() {
  return {
    name: IDEMPOTENCY_HEADER,
    in: 'header',
    required: false,
    description:
      `Makes the write safe to send again (docs/partners.md). The first answer to a key of an API key is stored with the write itself ` +
      `and, for ${IDEMPOTENCY_TTL_HOURS} hours, answered again (same status and body, with \`${REPLAYED_HEADER}: true\`) to the same ` +
      `method, path, query string and body with that key; another request with the key is 422, one sent while the first is still running is 409. ` +
      `Answers of 5xx and 429 are not stored. Keys are scoped to the API key. At most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters (else 400).`,
    schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
  };
}

function replayedHeader() {
  return {
    description: `\`true\` on an answer replayed for an \`${IDEMPOTENCY_HEADER}\` already answered; absent otherwise.`,
    schema: { type: 'string', enum: ['true'] },
  };
}

function idempotencyConflict() {
  return {
    description: `A request with the same \`${IDEMPOTENCY_HEADER}\` is still being processed: send it again once that one is answered (\`Retry-After\`).`,
    headers: { 'Retry-After': { description: 'Seconds to wait before sending it again.', schema: { type: 'integer' } } },
    content: {
      'application/json': {
        schema: ref('schemas', 'Error'),
        examples: {
          running: {
            value: { status: 409, error: 'Conflict', message: STILL_RUNNING },
          },
        },
      },
    },
  };
}

function includeParameter(associations: readonly string[]) {
  const named = associations.length ? `Associations: ${associations.map((a) => `\`${a}\``).join(', ')}.` : 'This resource has none.';
  return {
    name: 'include',
    in: 'query',
    description: `Comma-separated associations to serialize; \`*\` (the default) includes all, unknown names are ignored, associations left out are absent from the response. ${named}`,
    schema: { type: 'string', default: '*' },
  };
}

function listSchema(rest: RestResource) {
  return {
    type: 'object',
    description: `A page of ${words(rest.plural)} visible to the caller.`,
    required: [rest.plural, 'meta'],
    properties: {
      [rest.plural]: { type: 'array', items: ref('schemas', schemaName(rest)) },
      meta: ref('schemas', 'SearchMeta'),
    },
    additionalProperties: false,
  };
}

/**
 * The fields a list's `opts[where]`, `opts[order]` and `opts[aggs]` take, read from its search
 * document: in its description (a last `**Fields.**` paragraph, replaced when present) and as
 * `x-leadnet-fields`. Fields some roles may not read are marked.
 */
export function withFields<T extends { description?: string }>(operation: T, search: SearchDocument): T & { 'x-leadnet-fields': Record<string, string[]> } {
  const fields = clientFields(search);
  const names = (list: typeof fields) => list.map(([name, f]) => (f.readableBy ? `${name} (some roles)` : name));
  const lists = { where: names(fields), order: names(fields.filter(([, f]) => !f.array)), aggs: names(fields) };
  const code = (list: string[]) => list.map((n) => `\`${n}\``).join(', ');
  const written = (operation.description ?? '').split('\n\n').filter((p) => p && !p.startsWith(FIELDS));
  const description = [...written, `${FIELDS} \`opts[where]\` and \`opts[aggs]\`: ${code(lists.where)}. \`opts[order]\`: ${code(lists.order)}.`].join('\n\n');
  return { ...operation, description, 'x-leadnet-fields': lists };
}

const FIELDS = '**Fields.**';

/**
 * Each list operation's fields (`x-leadnet-fields`, and its description's last paragraph), read from
 * the search document the list searches. The generator writes them into the committed document; a
 * document that has them already is unchanged.
 */
export function withListFields(document: OpenApiDocument, lists: ListDocuments): OpenApiDocument {
  for (const [path, doc] of Object.entries(lists)) {
    const operation = document.paths[path]?.get;
    if (operation) document.paths[path].get = withFields(operation, doc);
  }
  return document;
}

function queryParameter() {
  return {
    name: 'q',
    in: 'query',
    description:
      'Full-text query. Every word must match (AND), case- and accent-insensitive, word-prefix matching, one typo allowed in words of 4+ letters; exact matches rank first. ' +
      `\`*\` or absent matches all. At most ${number(LIMITS.maxQueryLength)} characters and ${LIMITS.maxQueryWords} words (else 400).`,
    schema: { type: 'string', default: '*' },
  };
}

function optsParameter() {
  return {
    name: 'opts',
    in: 'query',
    style: 'deepObject',
    explode: true,
    description: [
      'Paging, ordering, filtering and aggregations, in bracket notation (`opts[page]=2&opts[order][created_at]=desc`). The string `null` anywhere in `opts` is a real null.',
      '',
      `- \`page\` (1 to ${LIMITS.maxPage}; a page past the end is an empty list) and \`per_page\` (min 1, default ${DEFAULT_PER_PAGE}, at most ${MAX_PER_PAGE}): anything else is 400.`,
      '- `order`: `{field: asc|desc}` (several keys in order) or a field name (asc). Default: relevance when `q` is given, then `created_at desc`, then `id`. An unknown field is 400.',
      `- \`where\`: sibling keys AND; a value or array (any-of; \`[]\` matches nothing); \`null\`; operators \`${WHERE_OPERATORS.join(' ')}\`; \`_or: [..]\`, \`_and: [..]\`, \`_not: {..}\`, nested at most ${LIMITS.maxWhereDepth} deep, at most ${number(LIMITS.maxWhereNodes)} keys and values in all (else 400). A field the resource does not index matches nothing; an unknown operator is 400.`,
      `- \`aggs\`: a field list or \`{field: {limit, where, order, min_doc_count}}\`, at most ${LIMITS.maxAggs} fields (else 400); results in \`meta.aggs\`, facet counts apply every \`where\` condition except the one on the aggregated field.`,
    ].join('\n'),
    schema: {
      type: 'object',
      properties: {
        page: { type: 'integer', minimum: 1, default: 1, maximum: LIMITS.maxPage },
        per_page: { type: 'integer', minimum: 1, default: DEFAULT_PER_PAGE },
        order: { oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string', enum: ['asc', 'desc'] } }] },
        where: { type: 'object' },
        aggs: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'object' }] },
      },
    },
  };
}

/** Replaces each `"enum": "$Name"` of the prose by the values of the enum `Name`. */
function withEnums<T>(value: T, enums: Record<string, readonly string[]>): T {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (typeof record.enum === 'string' && record.enum.startsWith('$')) {
      const values = enums[record.enum.slice(1)];
      if (!values) throw new Error(`openapi.prose.json names an unknown enum ${record.enum}`);
      record.enum = [...values];
    }
    Object.values(record).forEach(visit);
  };
  visit(value);
  return value;
}
