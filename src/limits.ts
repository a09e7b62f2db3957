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
  /** Items of one list in a write input: emails, phone numbers, activities, delivery areas, hours... */
  maxInputObjects: 100,
  /** Items of one list of plain values in a write input (ids...). */
  maxInputValues: 1_000,
  /** Nesting and size (values counted) of one JSON-typed value: `data`, `crm_data_cache`, `where`... */
  maxJsonDepth: 20,
  maxJsonNodes: 10_000,
} as const;

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
  const stack: Array<[unknown, number]> = [[value, 1]];
  let nodes = 0;
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (++nodes > LIMITS.maxJsonNodes) throw new LimitViolation(`holds more than ${LIMITS.maxJsonNodes} values`);
    if (typeof v === 'string') {
      if (text && !isStorableText(v)) throw new LimitViolation('is not valid Unicode text (lone surrogate)');
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
      stack.push([item, depth + (key === '_or' || key === '_and' || key === '_not' ? 1 : 0)]);
    }
  }
}

/**
 * Every root field's arguments, before its resolver runs (wired in src/graphql/schema.ts): list
 * arguments of list fields, and the whole input of mutations.
 */
export function checkRootArgs(info: GraphQLResolveInfo, args: Record<string, unknown>): void {
  const field = info.parentType.getFields()[info.fieldName];
  if (field.args.some((a) => a.name === 'perPage' || a.name === 'first')) checkListArgs(args);
  if (info.parentType === info.schema.getMutationType()) checkWriteArgs(field.args, args);
}

// ---- write inputs ---------------------------------------------------------------------------------

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The arguments of a mutation, walked with their GraphQL types: lists within their bounds and text
 * PostgreSQL can store. Problems are 422 on the attribute in REST's snake_case (`emails`,
 * `lead_activities.data`); the top-level `input` is not part of the name.
 */
export function checkWriteArgs(definitions: readonly GraphQLArgument[], args: Record<string, unknown>): void {
  const details: ErrorDetail[] = [];
  const report = (field: string, message: string) => {
    if (!details.some((d) => d.field === field)) details.push(validationDetail(field || 'base', 'invalid', message));
  };
  for (const arg of definitions) {
    const value = args[arg.name];
    if (value !== undefined) walk(value, arg.type, arg.name === 'input' ? [] : [snake(arg.name)], report);
  }
  if (details.length) throw invalid(details);
}

function walk(value: unknown, type: GraphQLInputType, path: string[], report: (field: string, message: string) => void): void {
  if (value === null || value === undefined) return;
  const inner = getNullableType(type);
  const field = path.join('.');
  if (isListType(inner)) {
    if (!Array.isArray(value)) return walk(value, inner.ofType, path, report);
    const objects = isInputObjectType(getNamedType(inner.ofType));
    const max = objects ? LIMITS.maxInputObjects : LIMITS.maxInputValues;
    if (value.length > max) return report(field, `must have at most ${max} items`);
    for (const item of value) walk(item, inner.ofType, path, report);
    return;
  }
  if (isInputObjectType(inner)) {
    const fields = inner.getFields();
    for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
      if (fields[name]) walk(v, fields[name].type, [...path, snake(name)], report);
    }
    return;
  }
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
