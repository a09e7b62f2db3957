import { ArgsType, Field, Float, InputType, Int, registerEnumType, type ClassType } from 'type-graphql';
import { GraphQLUUID } from 'graphql-scalars';
import { AppError } from '../errors';
import { LIMITS } from '../limits';
import { camel } from './names';
import { coerce, UNMATCHABLE, usableField } from './where';
import { clientFields, type FieldType, type SearchDocument, type Where } from './types';
import { JSONScalar } from './json-scalar';

/**
 * The typed list arguments of GraphQL, generated from each resource's search document so that the
 * schema and the search cannot drift: `<Resource>Where` (one typed filter per field, `_and/_or/_not`),
 * `<Resource>OrderBy` (an enum of `FIELD_ASC`/`FIELD_DESC`), `<Resource>FacetField` and
 * `<Resource>FacetInput` for `aggs`. Field names are the types' camelCase names. `ListOptions` turns
 * the typed arguments into the PRODUCT.md 6 `where`/`order`/`aggs` the search backends read (the REST
 * contract's `opts[...]` tree, over the documents' snake_case names).
 */

const constant = (name: string) => name.toUpperCase();

// ---- filter inputs, one per field type and arity -----------------------------------------------------

const SCALAR: Record<FieldType, { type: () => any; label: string }> = {
  string: { type: () => String, label: 'String' },
  number: { type: () => Float, label: 'Float' },
  boolean: { type: () => Boolean, label: 'Boolean' },
  date: { type: () => String, label: 'Date' },
  uuid: { type: () => GraphQLUUID, label: 'UUID' },
};

type FieldSpec = [name: string, type: () => any, description: string];

function defineClass(name: string, fields: FieldSpec[]): ClassType {
  const cls = { [name]: class {} }[name];
  for (const [key, type, description] of fields) Field(type, { nullable: true, description })(cls.prototype, key);
  return cls;
}

const filters = new Map<string, ClassType>();

/** `StringFilter`, `DateListFilter`...: the PRODUCT.md 6 operators a field of this type takes. */
function filterInput(type: FieldType, array: boolean): ClassType {
  const { type: scalar, label } = SCALAR[type];
  const name = `${label}${array ? 'List' : ''}Filter`;
  const known = filters.get(name);
  if (known) return known;
  const value = array ? 'some value' : 'the value';
  const fields: FieldSpec[] = [
    ['eq', scalar, `${array ? 'Some value equals' : 'Equals'} this; \`null\` matches a missing value.`],
    ['not', scalar, `${array ? 'No value equals' : 'Does not equal'} this; \`null\` matches a present value.`],
    ['in', () => [scalar()], `${array ? 'Some value is' : 'Is'} one of these.`],
    ['notIn', () => [scalar()], `${array ? 'No value is' : 'Is not'} one of these.`],
    ['exists', () => Boolean, array ? 'Has at least one value (`false`: none).' : 'Has a value (`false`: is missing).'],
  ];
  if (array) fields.push(['all', () => [scalar()], 'Holds every one of these.']);
  if (type !== 'boolean' && type !== 'uuid') {
    for (const [op, word] of [['gt', 'greater than'], ['gte', 'at least'], ['lt', 'less than'], ['lte', 'at most']]) {
      fields.push([op, scalar, `${value === 'the value' ? 'The value' : 'Some value'} is ${word} this${type === 'date' ? ' (ISO 8601 date or date-time, UTC when no zone)' : ''}.`]);
    }
  }
  if (type === 'string') {
    fields.push(
      ['prefix', () => String, `${array ? 'Some value starts' : 'Starts'} with this text (at most ${LIMITS.maxPatternLength} characters).`],
      ['like', () => String, `SQL LIKE pattern (\`%\` any text, \`_\` one character), case-sensitive; at most ${LIMITS.maxPatternLength} characters and ${LIMITS.maxPatternWildcards} wildcards.`],
      ['ilike', () => String, 'The same, ignoring case.'],
    );
  }
  const cls = defineClass(name, fields);
  InputType(name, { description: `Conditions on a ${array ? 'list of ' : ''}${label} field; every one given must hold.` })(cls);
  filters.set(name, cls);
  return cls;
}

/**
 * `opts` of every page list: the list options in the REST contract's shape (PRODUCT.md 6), the form the
 * REST facade passes to its list operations. Its members are JSON, not `<Resource>Where`: the contract's
 * loose tree (snake_case fields, a field the resource does not index matches nothing, values as text) is
 * not the typed filter's, and an input type that holds itself would keep the operation off graphql-jit.
 */
@InputType('ListQueryOptions', {
  description:
    "List options in the REST contract's shape (`opts[where]`, `opts[order]`, `opts[aggs]` of /v1, snake_case field names; PRODUCT.md 6), instead of the typed `where`, `order` and `aggs`: give one form or the other. Facets answer in `meta.aggs` under the names asked.",
})
export class ListQueryOptionsInput {
  @Field(() => JSONScalar, { nullable: true, description: 'Filters: `{field: value}`, `{field: [values]}`, `{field: {operator: value}}`, `_and`, `_or`, `_not`.' })
  where?: unknown;

  @Field(() => JSONScalar, { nullable: true, description: 'Sort: `{field: "asc" | "desc"}` (keys in order), a list of those, or a field name.' })
  order?: unknown;

  @Field(() => JSONScalar, { nullable: true, description: 'Facets: a field list, or `{field: {limit, where, order, min_doc_count}}`.' })
  aggs?: unknown;
}

const FacetOrder = { COUNT_DESC: '_count:desc', COUNT_ASC: '_count:asc', KEY_ASC: '_key:asc', KEY_DESC: '_key:desc' };
registerEnumType(FacetOrder, {
  name: 'FacetOrder',
  description: 'Bucket order: by count (default: most first) or by key.',
  valuesConfig: {
    COUNT_DESC: { description: 'Most records first (the default).' },
    COUNT_ASC: { description: 'Fewest records first.' },
    KEY_ASC: { description: 'By value, ascending (A to Z, smallest, earliest).' },
    KEY_DESC: { description: 'By value, descending (Z to A, largest, latest).' },
  },
});

/** How `<field>_ASC` and `<field>_DESC` read for a field of this type. */
const DIRECTIONS: Record<FieldType, [asc: string, desc: string]> = {
  string: ['A to Z', 'Z to A'],
  number: ['smallest first', 'largest first'],
  boolean: ['false first', 'true first'],
  date: ['earliest first', 'latest first'],
  uuid: ['ascending', 'descending'],
};

// ---- per-resource arguments ----------------------------------------------------------------------

export interface ListInputTypes {
  /** `q, where, order, page, perPage, aggs` of the page list (`leads`). */
  ListArgs: ClassType;
  /** `q, where, order` of the cursor connection (`leadsConnection`). */
  FilterArgs: ClassType;
}

const generated = new Map<string, ListInputTypes>();

/** The typed list arguments of one resource (`name`: its GraphQL type, e.g. `Lead`). */
export function listInputs(doc: SearchDocument, name: string): ListInputTypes {
  const known = generated.get(name);
  if (known) return known;
  const fields = clientFields(doc);

  const Where = defineClass(`${name}Where`, [
    ...fields.map(([field, f]): FieldSpec => {
      const filter = filterInput(f.type, !!f.array);
      return [camel(field), () => filter, `REST: \`opts[where][${field}]\`${f.readableBy ? '; not every role may filter on it' : ''}.`];
    }),
    ['_and', () => [Where], 'Every one of these holds.'],
    ['_or', () => [Where], 'At least one of these holds.'],
    ['_not', () => Where, 'This does not hold.'],
  ]);
  InputType(`${name}Where`, { description: `Filters on ${doc.name}: fields AND together (PRODUCT.md 6).` })(Where);

  const OrderBy = Object.fromEntries(
    fields
      .filter(([, f]) => !f.array)
      .flatMap(([field]) => [
        [`${constant(field)}_ASC`, `${field}:asc`],
        [`${constant(field)}_DESC`, `${field}:desc`],
      ]),
  );
  OrderBy.RELEVANCE = '_score:desc';
  registerEnumType(OrderBy, {
    name: `${name}OrderBy`,
    description: 'Sort terms, most significant first; nulls last; then relevance when `q` is given, newest, id.',
    valuesConfig: {
      RELEVANCE: { description: 'Best `q` match first.' },
      ...Object.fromEntries(
        fields
          .filter(([, f]) => !f.array)
          .flatMap(([field, f]) => {
            const [asc, desc] = DIRECTIONS[f.type];
            return [
              [`${constant(field)}_ASC`, { description: `\`${camel(field)}\`, ${asc} (REST: \`opts[order][${field}]=asc\`).` }],
              [`${constant(field)}_DESC`, { description: `\`${camel(field)}\`, ${desc} (REST: \`opts[order][${field}]=desc\`).` }],
            ];
          }),
      ),
    },
  });

  const FacetField = Object.fromEntries(fields.map(([field]) => [constant(field), field]));
  registerEnumType(FacetField, {
    name: `${name}FacetField`,
    description: `Fields of ${doc.name} whose values \`aggs\` can count.`,
    valuesConfig: Object.fromEntries(
      fields.map(([field, f]) => [constant(field), { description: `Counts of \`${camel(field)}\` values${f.array ? ' (each value of the list counts)' : ''}; REST: \`opts[aggs][${field}]\`.` }]),
    ),
  });

  const FacetInput = defineClass(`${name}FacetInput`, [
    ['limit', () => Int, 'At most this many buckets (default 1000).'],
    ['minDocCount', () => Int, 'Buckets with at least this many records (default and minimum 1).'],
    ['order', () => FacetOrder, 'Default: COUNT_DESC.'],
    ['where', () => Where, "Counts only records that also match this (beside the list's own filter)."],
  ]);
  Field(() => FacetField, { description: 'The field to count values of.' })(FacetInput.prototype, 'field');
  InputType(`${name}FacetInput`, { description: "Counts of a field's values over the list (its own `where` condition left out)." })(FacetInput);

  const filterFields: FieldSpec[] = [
    ['q', () => String, 'Full-text query; `*` or absent matches all.'],
    ['where', () => Where, `Typed filters; see \`${name}Where\`.`],
    ['order', () => [OrderBy], 'Sort terms, e.g. `[CREATED_AT_DESC]`.'],
  ];
  const FilterArgs = defineClass(`${name}FilterArgs`, filterFields);
  ArgsType()(FilterArgs);
  const ListArgs = defineClass(`${name}ListArgs`, [
    ...filterFields,
    ['page', () => Int, 'Page number, from 1.'],
    ['perPage', () => Int, 'Page size, default 50, at most 500.'],
    ['aggs', () => [FacetInput], 'Facets to count: `meta.facets` (and `meta.aggs`, the REST shape) answer them.'],
    ['opts', () => ListQueryOptionsInput, 'The same options in the REST contract\'s shape (`where`, `order`, `aggs`), instead of the typed ones.'],
  ]);
  ArgsType()(ListArgs);

  const types = { ListArgs, FilterArgs };
  generated.set(name, types);
  return types;
}

// ---- typed arguments -> the search's where, order and aggs ----------------------------------------

/** `where`, `order` and `aggs` as src/search reads them (PRODUCT.md 6, snake_case names). */
export interface SearchOptions {
  where: Where | null;
  order: Array<Record<string, 'asc' | 'desc'>> | null;
  aggs: Record<string, Record<string, unknown>> | null;
}

const LOGICAL = new Set(['_and', '_or', '_not']);
const badInput = (message: string) => new AppError('BAD_USER_INPUT', message);

/**
 * Reads one resource's typed list arguments for one caller. A field the caller may not read (a
 * `readableBy` field) is BAD_USER_INPUT naming the fields it may, as is a value its field cannot hold
 * (a date that is not ISO 8601): a typed filter never answers with a silent empty list.
 */
export class ListOptions {
  private readonly byCamel = new Map<string, string>();

  constructor(
    private readonly doc: SearchDocument,
    hidden: readonly string[],
  ) {
    for (const [name] of clientFields(doc)) if (usableField(doc, name, { hidden })) this.byCamel.set(camel(name), name);
  }

  read(args: { where?: unknown; order?: unknown; aggs?: unknown }): SearchOptions {
    return { where: this.where(args.where), order: this.order(args.order), aggs: this.aggs(args.aggs) };
  }

  /** The document's name of the field the caller named (camelCase). */
  private field(name: string, what: string): string {
    const field = this.byCamel.get(name);
    if (field) return field;
    throw badInput(`${this.doc.name} cannot ${what} on "${name}". Fields: ${[...this.byCamel.keys()].sort().join(', ')}.`);
  }

  where(where: unknown): Where | null {
    if (where === null || where === undefined) return null;
    const parts: Where[] = [];
    for (const [key, value] of Object.entries(where as Record<string, unknown>)) {
      if (value === undefined) continue;
      if (LOGICAL.has(key)) {
        if (value === null) throw badInput(`where.${key} cannot be null`);
        parts.push({ [key]: key === '_not' ? this.where(value) : (value as unknown[]).map((w) => this.where(w)) });
      } else {
        parts.push(...this.fieldConditions(this.field(key, 'filter'), key, value as Record<string, unknown> | null));
      }
    }
    return parts.length <= 1 ? (parts[0] ?? null) : { _and: parts };
  }

  /** One `{field: {operator: value}}` per operator given (they AND). */
  private fieldConditions(field: string, name: string, filter: Record<string, unknown> | null): Where[] {
    if (filter === null) throw badInput(`where.${name} cannot be null (use {exists: false})`);
    const spec = this.doc.fields[field];
    // Dates are typed as strings: one that is not a date is refused here, not matched against nothing.
    const value = (op: string, v: unknown): unknown => {
      if (Array.isArray(v)) return v.map((item) => value(op, item));
      if (spec.type === 'date' && typeof v === 'string' && coerce(spec, v) === UNMATCHABLE) {
        throw badInput(`where.${name}.${op}: "${v}" is not an ISO 8601 date or date-time`);
      }
      return v;
    };
    const conditions: Where[] = [];
    for (const [op, v] of Object.entries(filter)) {
      if (v === undefined) continue;
      if (v === null && op !== 'eq' && op !== 'not') throw badInput(`where.${name}.${op} cannot be null`);
      const operand = value(op, v);
      conditions.push({ [field]: op === 'eq' ? operand : op === 'notIn' ? { not: operand } : { [op]: operand } });
    }
    return conditions;
  }

  order(order: unknown): SearchOptions['order'] {
    if (order === null || order === undefined) return null;
    return (order as string[]).map((term) => {
      const [field, direction] = term.split(':') as [string, 'asc' | 'desc'];
      if (field !== '_score') this.field(camel(field), 'order');
      return { [field]: direction };
    });
  }

  aggs(aggs: unknown): SearchOptions['aggs'] {
    if (aggs === null || aggs === undefined) return null;
    const requests: Record<string, Record<string, unknown>> = {};
    for (const agg of aggs as Array<{ field: string; limit?: number | null; minDocCount?: number | null; order?: string | null; where?: unknown }>) {
      const field = this.field(camel(agg.field), 'aggregate');
      const options: Record<string, unknown> = {};
      if (agg.limit != null) options.limit = agg.limit;
      if (agg.minDocCount != null) options.min_doc_count = agg.minDocCount;
      if (agg.order != null) {
        const [key, direction] = agg.order.split(':');
        options.order = { [key]: direction };
      }
      if (agg.where != null) options.where = this.where(agg.where);
      requests[field] = options;
    }
    return requests;
  }
}
