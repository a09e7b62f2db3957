import {
  coerceInputValue,
  getNullableType,
  isInputObjectType,
  isListType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
} from 'graphql';
import { invalid, validationDetail, type ErrorDetail } from '../errors';

import { camel, snake } from '../search/names';

export { camel, snake };

/**
 * Turns a REST body object (snake_case) into the variables of a GraphQL input type: known keys are
 * renamed to their camelCase fields, walking nested inputs and lists; unknown keys are dropped (or,
 * with strict parameter checking, reported as `unpermitted`); values of the wrong type are 422
 * `invalid` on the attribute. Free-form (JSON scalar) values pass through untouched.
 */
export function toGraphQLInput(body: Record<string, unknown>, type: GraphQLInputObjectType, strict: boolean): Record<string, unknown> {
  const details: ErrorDetail[] = [];
  const mapped = mapObject(body, type, [], strict, details);
  if (!details.length) {
    coerceInputValue(mapped, type, (path) => {
      const field = path.filter((p) => typeof p === 'string').map((p) => snake(String(p))).join('.') || 'base';
      if (!details.some((d) => d.field === field)) details.push(validationDetail(field, 'invalid'));
    });
  }
  if (details.length) throw invalid(details);
  return mapped;
}

function mapObject(
  body: Record<string, unknown>,
  type: GraphQLInputObjectType,
  path: string[],
  strict: boolean,
  details: ErrorDetail[],
): Record<string, unknown> {
  const fields = type.getFields();
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const name = fields[key] ? key : camel(key);
    const field = fields[name];
    if (!field) {
      if (strict) details.push(validationDetail([...path, key].join('.'), 'unpermitted'));
      continue;
    }
    out[name] = mapValue(value, field.type, [...path, snake(name)], strict, details);
  }
  return out;
}

function mapValue(value: unknown, type: GraphQLInputType, path: string[], strict: boolean, details: ErrorDetail[]): unknown {
  const inner = getNullableType(type);
  if (value === null || value === undefined) return value;
  if (isListType(inner)) {
    const items = Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : null;
    return items ? items.map((item) => mapValue(item, inner.ofType, path, strict, details)) : value;
  }
  if (isInputObjectType(inner) && isPlainObject(value)) return mapObject(value, inner, path, strict, details);
  return value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
