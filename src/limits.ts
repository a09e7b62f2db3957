import {
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLResolveInfo,
} from 'graphql';
import { badRequest, invalid, validationDetail, type ErrorDetail } from './errors';

/**
 * The bounds of client input (issue 9), one place for both roads: REST runs the same GraphQL
 * operations, so every check below meets a request from /v1 and from /graphql alike, before a resolver
 * does any work. List parameters out of bounds are 400 (BAD_REQUEST, PRODUCT.md section 6); write
 * inputs out of bounds are 422 (BAD_USER_INPUT) on the attribute. GraphQL's own document limits are
 * in src/graphql/cost.ts and configured in src/config.ts.
 */
export const LIMITS = {
  /** `page` / `opts[page]`: GraphQL's Int. Pages past the end stay 200 with an empty list. */
  maxPage: 2_147_483_647,
  /** Fields in one `aggs`. */
  maxAggs: 20,
  /** Nesting of `_or`, `_and` and `_not` in one `where`. */
  maxWhereDepth: 10,
  /** Keys and list items in one `where` (1,000 ids in one `in` fit). */
  maxWhereNodes: 2_000,
  /** Characters and words of `q`. */
  maxQueryLength: 1_000,
  maxQueryWords: 32,
  /**
   * Characters of one `prefix`, `like` or `ilike` pattern, and wildcards (`%`, `_`) of one `like` or
   * `ilike`: a search engine turns a pattern into an automaton and refuses one too complex to build
   * (Lucene's `too_complex_to_determinize_exception`); within these bounds every pattern runs on both
   * backends (test/search/conformance.ts).
   */
  maxPatternLength: 256,
  maxPatternWildcards: 16,
  /** Items of one list in a write input: emails, phone numbers, activities, delivery areas, hours... */
  maxInputObjects: 100,
  /** Items of one list of plain values in a write input (ids...). */
  maxInputValues: 1_000,
  /** Items of one batch (`inputs`: POST /v1/leads/batch), each checked on its own (`checkBatchItem`). */
  maxBatchItems: 500,
  /** Nesting and size (values counted) of one JSON-typed value: `data`, `crm_data_cache`, `where`... */
  maxJsonDepth: 20,
  maxJsonNodes: 10_000,
} as const;

/** Inclusive bounds of one numeric input. */
export interface NumericBound {
  min: number;
  max: number;
}

const INT4 = { min: -2_147_483_647 - 1, max: 2_147_483_647 };
/** Any finite double: what PostgreSQL compares and Elasticsearch's `double` holds. */
const FINITE = { min: -Number.MAX_VALUE, max: Number.MAX_VALUE };
/** A `smallint` column. */
const INT2 = { min: -32_768, max: 32_767 };
const LATITUDE = { min: -90, max: 90 };
const LONGITUDE = { min: -180, max: 180 };

/** A CRL's `delivery_radius` in miles; routing computes with it in metres (src/modules/routing). */
export const MAX_DELIVERY_RADIUS_MILES = 1_000_000;
/** A store type's `boost`: added to a 0-1 distance score, and an Elasticsearch `function_score` weight (a float). */
export const MAX_BOOST = 1_000_000;

/**
 * Every Int and Float a client can send, by `InputType.field` or `Type.field(argument)` (a test checks
 * that the schema has no other), with the range checked here, before any resolver works: NaN and
 * Infinity (a JSON or GraphQL literal `1e400`) never pass, and out of range is refused on the field, 422
 * on a write, 400 on a list argument. `FINITE` marks a field whose service checks the narrower range the
 * product gives it, together with the write's other attributes: latitude and longitude, `delivery_radius`
 * (0 to MAX_DELIVERY_RADIUS_MILES), `boost` (0 to MAX_BOOST), `position`, the nearest rule's distance.
 */
export const NUMERIC_INPUTS: Readonly<Record<string, NumericBound>> = {
  'AddressInput.latitude': FINITE,
  'AddressInput.longitude': FINITE,
  'RoutingAddressInput.latitude': LATITUDE,
  'RoutingAddressInput.longitude': LONGITUDE,
  'CompanyRetailerLocationInput.deliveryRadius': FINITE,
  'CompanyStoreTypeInput.boost': FINITE,
  // The columns are smallints; a closed day's hours are not otherwise checked (hours.ts checks open ones).
  'HourInput.openAtHour': INT2,
  'HourInput.openAtMinute': INT2,
  'HourInput.closeAtHour': INT2,
  'HourInput.closeAtMinute': INT2,
  // Checked 0-23 / 0-59 with the exception's other attributes (hour-exceptions.ts).
  'HourExceptionSpanInput.openAtHour': INT2,
  'HourExceptionSpanInput.openAtMinute': INT2,
  'HourExceptionSpanInput.closeAtHour': INT2,
  'HourExceptionSpanInput.closeAtMinute': INT2,
  'ProductImageInput.position': INT4,
  'RoutingSettingsInput.nearestMaxDistanceMiles': FINITE,
  'FloatFilter.eq': FINITE,
  'FloatFilter.not': FINITE,
  'FloatFilter.in': FINITE,
  'FloatFilter.notIn': FINITE,
  'FloatFilter.gt': FINITE,
  'FloatFilter.gte': FINITE,
  'FloatFilter.lt': FINITE,
  'FloatFilter.lte': FINITE,
  '*FacetInput.limit': INT4,
  '*FacetInput.minDocCount': INT4,
  'Query.*(page)': INT4,
  'Query.*(perPage)': INT4,
  'Query.*(first)': INT4,
  'Query.*(last)': INT4,
  'Query.webhookDeliveries(limit)': INT4,
  'ResponseTimeSettingsInput.firstResponseMinutes': INT4,
  'ResponseTimeSettingsInput.acceptMinutes': INT4,
  'ResponseTimeSettingsInput.maxHandovers': INT4,
  // Checked 1-1,200 months / 1-36,500 days with the other settings (retention.service.ts).
  'RetentionSettingsInput.inactiveLeadMonths': INT4,
  'RetentionSettingsInput.deliveryLogDays': INT4,
  'LocatorDemandBox.south': LATITUDE,
  'LocatorDemandBox.north': LATITUDE,
  'LocatorDemandBox.west': LONGITUDE,
  'LocatorDemandBox.east': LONGITUDE,
  'LocatorDemandPoint.latitude': LATITUDE,
  'LocatorDemandPoint.longitude': LONGITUDE,
};

/**
 * A client's coordinate, distance or radius as PostgreSQL may compute with it: a magnitude below 1e-9
 * (a tenth of a millimetre in degrees) is 0. PostgreSQL raises an error ("value out of range: underflow")
 * on a product that rounds to zero from non-zero factors, so a value like 5e-324 degrees, stored or sent
 * as it is, would fail every distance computed with it.
 */
export function flushTiny(value: number): number {
  return Math.abs(value) < 1e-9 ? 0 : value;
}

/** Bounds by name, as found (the names are the schema's: a finite set). */
const boundsByName = new Map<string, NumericBound | null>();

/** The bound of a numeric input named `Type.field` or `Type.field(argument)`, wildcards included. */
export function numericBound(name: string): NumericBound | undefined {
  let bound = boundsByName.get(name);
  if (bound === undefined) {
    bound =
      NUMERIC_INPUTS[name] ??
      NUMERIC_INPUTS[name.replace(/^\w+FacetInput\./, '*FacetInput.')] ??
      NUMERIC_INPUTS[name.replace(/^Query\.\w+\((page|perPage|first|last)\)$/, 'Query.*($1)')] ??
      null;
    boundsByName.set(name, bound);
  }
  return bound ?? undefined;
}

/** Why a number is out of its bound, or null. Integers need no check here: GraphQL's Int is already 32-bit. */
function numberProblem(value: number, bound: NumericBound | undefined): string | null {
  if (!Number.isFinite(value)) return 'must be a finite number';
  if (!bound || (value >= bound.min && value <= bound.max)) return null;
  if (bound === FINITE) return 'must be a finite number';
  return `must be between ${bound.min} and ${bound.max}`;
}

/** A problem with a bounded value; the road it came by decides the status. */
export class LimitViolation extends Error {}

/** A string PostgreSQL can store as text and jsonb: no lone UTF-16 surrogate (NUL has its own rules). */
export function isStorableText(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Checks a JSON-typed input value without recursion: nesting, number of values and strings (keys
 * included) that PostgreSQL could not store (unless `text` is false). Throws LimitViolation.
 */
export function checkJson(value: unknown, { maxDepth = LIMITS.maxJsonDepth, text = true }: { maxDepth?: number; text?: boolean } = {}): void {
  // `text` also decides numbers: a stored JSON value keeps only finite ones (JSON.stringify writes
  // Infinity, from a JSON `1e400`, as null).
  const stack: Array<[unknown, number]> = [[value, 1]];
  let nodes = 0;
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (++nodes > LIMITS.maxJsonNodes) throw new LimitViolation(`holds more than ${LIMITS.maxJsonNodes} values`);
    if (typeof v === 'string') {
      if (text && !isStorableText(v)) throw new LimitViolation('is not valid Unicode text (lone surrogate)');
      continue;
    }
    if (typeof v === 'number') {
      if (text && !Number.isFinite(v)) throw new LimitViolation('holds a number out of range');
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth > maxDepth) throw new LimitViolation(`is nested deeper than ${maxDepth} levels`);
    if (Array.isArray(v)) {
      for (const item of v) stack.push([item, depth + 1]);
    } else {
      for (const [k, item] of Object.entries(v)) {
        if (text && !isStorableText(k)) throw new LimitViolation('is not valid Unicode text (lone surrogate)');
        stack.push([item, depth + 1]);
      }
    }
  }
}

// ---- list arguments -------------------------------------------------------------------------------

/** `page` within GraphQL's Int (REST reads `opts[page]` as any integer before it gets here). */
export function checkPage(page: number, name = 'opts[page]'): void {
  if (page > LIMITS.maxPage) throw badRequest(`${name} must be an integer between 1 and ${LIMITS.maxPage}`);
}

/** `q`, `where` and `aggs` of a list field (page and per_page are normalized in src/search/options.ts). */
export function checkListArgs(args: { q?: unknown; where?: unknown; aggs?: unknown }): void {
  if (typeof args.q === 'string') {
    if (args.q.length > LIMITS.maxQueryLength) throw badRequest(`q must be at most ${LIMITS.maxQueryLength} characters`);
    if (args.q.trim().split(/\s+/).length > LIMITS.maxQueryWords) throw badRequest(`q must have at most ${LIMITS.maxQueryWords} words`);
  }
  checkWhere(args.where, 'opts[where]');
  const aggs = args.aggs;
  const count = Array.isArray(aggs) ? aggs.length : typeof aggs === 'object' && aggs !== null ? Object.keys(aggs).length : 0;
  if (count > LIMITS.maxAggs) throw badRequest(`opts[aggs] must name at most ${LIMITS.maxAggs} fields`);
  if (typeof aggs === 'object' && aggs !== null) {
    for (const options of Object.values(aggs)) {
      if (typeof options === 'object' && options !== null && 'where' in options) checkWhere((options as { where: unknown }).where, 'opts[aggs][where]');
    }
  }
}

function checkWhere(where: unknown, name: string): void {
  const stack: Array<[unknown, number]> = [[where, 0]];
  let nodes = 0;
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > LIMITS.maxWhereDepth) throw badRequest(`${name} must nest _or, _and and _not at most ${LIMITS.maxWhereDepth} deep`);
    for (const [key, item] of Object.entries(v)) {
      if (++nodes > LIMITS.maxWhereNodes) throw badRequest(`${name} must have at most ${LIMITS.maxWhereNodes} conditions and values`);
      if (typeof item === 'string' && PATTERN_OPERATORS.has(key)) checkPattern(key, item, name);
      stack.push([item, depth + (key === '_or' || key === '_and' || key === '_not' ? 1 : 0)]);
    }
  }
}

const PATTERN_OPERATORS = new Set(['prefix', 'like', 'ilike']);

function checkPattern(op: string, pattern: string, name: string): void {
  if (pattern.length > LIMITS.maxPatternLength) throw badRequest(`${name}: ${op} patterns must be at most ${LIMITS.maxPatternLength} characters`);
  if (op === 'prefix') return;
  let wildcards = 0;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === '%' || pattern[i] === '_') wildcards++;
  }
  if (wildcards > LIMITS.maxPatternWildcards) throw badRequest(`${name}: ${op} patterns must have at most ${LIMITS.maxPatternWildcards} wildcards (% and _)`);
}

/**
 * Every root field's arguments, before its resolver runs (wired in src/graphql/schema.ts): list
 * arguments of list fields, and the whole input of mutations.
 */
export function checkRootArgs(info: GraphQLResolveInfo, args: Record<string, unknown>): void {
  const field = info.parentType.getFields()[info.fieldName];
  const list = field.args.some((a) => a.name === 'perPage' || a.name === 'first');
  if (list) checkListArgs(args);
  if (info.parentType === info.schema.getMutationType()) checkWriteArgs(field.args, args, `${info.parentType.name}.${info.fieldName}`);
  else checkQueryArgs(field.args, args, `${info.parentType.name}.${info.fieldName}`, list);
}

/**
 * The numbers of a query's arguments: out of bounds is 400 on a list (`perPage` as `per_page`, like
 * REST's `opts[...]`), else 422 on the argument (the routing dry run's `address.latitude`).
 */
function checkQueryArgs(definitions: readonly GraphQLArgument[], args: Record<string, unknown>, owner: string, list: boolean): void {
  const details: ErrorDetail[] = [];
  const report = (field: string, message: string) => {
    if (!details.some((d) => d.field === field)) details.push(validationDetail(field || 'base', 'invalid', message));
  };
  for (const arg of definitions) {
    const value = args[arg.name];
    if (value !== undefined) walk(value, arg.type, [snake(arg.name)], report, `${owner}(${arg.name})`, { numbersOnly: true });
  }
  if (!details.length) return;
  if (list) throw badRequest(`${details[0].field} ${details[0].message}`);
  throw invalid(details);
}

// ---- write inputs ---------------------------------------------------------------------------------

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The arguments of a mutation, walked with their GraphQL types: lists within their bounds and text
 * PostgreSQL can store. Problems are 422 on the attribute in REST's snake_case (`emails`,
 * `lead_activities.data`); the top-level `input` is not part of the name.
 */
export function checkWriteArgs(definitions: readonly GraphQLArgument[], args: Record<string, unknown>, owner = 'Mutation'): void {
  const details: ErrorDetail[] = [];
  const report = (field: string, message: string) => {
    if (!details.some((d) => d.field === field)) details.push(validationDetail(field || 'base', 'invalid', message));
  };
  for (const arg of definitions) {
    const value = args[arg.name];
    if (value === undefined) continue;
    if (arg.name === BATCH_ARGUMENT && Array.isArray(value)) {
      // A batch: its size here, each item by its resolver (`checkBatchItem`), as that item's answer.
      if (value.length > LIMITS.maxBatchItems) report(snake(arg.name), `must have at most ${LIMITS.maxBatchItems} items`);
      continue;
    }
    walk(value, arg.type, arg.name === 'input' ? [] : [snake(arg.name)], report, `${owner}(${arg.name})`);
  }
  if (details.length) throw invalid(details);
}

/** The argument of a batch mutation: a list of inputs, each item answered on its own. */
export const BATCH_ARGUMENT = 'inputs';

/**
 * One item of a batch mutation's `inputs`, checked as `checkWriteArgs` checks a single write's `input`
 * (422 on the attribute, named as for that write): the item's own answer.
 */
export function checkBatchItem(info: GraphQLResolveInfo, item: unknown): void {
  const field = info.parentType.getFields()[info.fieldName];
  const arg = field.args.find((a) => a.name === BATCH_ARGUMENT);
  const list = arg && getNullableType(arg.type);
  if (!arg || !isListType(list)) throw new Error(`${info.parentType.name}.${info.fieldName} has no batch argument ${BATCH_ARGUMENT}`);
  checkWriteArgs([{ ...arg, name: 'input', type: list.ofType }], { input: item }, `${info.parentType.name}.${info.fieldName}`);
}

/**
 * `name` is the value's place in the schema (`Type.field` or `Type.field(argument)`), for its numeric
 * bound. Lists are bounded only in writes; `numbersOnly` checks nothing but numbers (query arguments).
 */
function walk(
  value: unknown,
  type: GraphQLInputType,
  path: string[],
  report: (field: string, message: string) => void,
  name: string,
  options: { numbersOnly?: boolean } = {},
): void {
  if (value === null || value === undefined) return;
  const inner = getNullableType(type);
  const field = path.join('.');
  if (isListType(inner)) {
    if (!Array.isArray(value)) return walk(value, inner.ofType, path, report, name, options);
    const objects = isInputObjectType(getNamedType(inner.ofType));
    const max = objects ? LIMITS.maxInputObjects : LIMITS.maxInputValues;
    if (!options.numbersOnly && value.length > max) return report(field, `must have at most ${max} items`);
    for (const item of value) walk(item, inner.ofType, path, report, name, options);
    return;
  }
  if (isInputObjectType(inner)) {
    const fields = inner.getFields();
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (fields[key]) walk(v, fields[key].type, [...path, snake(key)], report, `${inner.name}.${key}`, options);
    }
    return;
  }
  if (typeof value === 'number') {
    const problem = numberProblem(value, numericBound(name));
    if (problem) report(field, problem);
    return;
  }
  if (options.numbersOnly) return;
  if (isScalarType(inner)) {
    if (typeof value === 'string' && !isStorableText(value)) report(field, 'is not valid Unicode text');
    else if (typeof value === 'object') {
      try {
        checkJson(value);
      } catch (e) {
        if (e instanceof LimitViolation) report(field, e.message);
        else throw e;
      }
    }
  }
}
