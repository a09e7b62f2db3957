import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type DefinitionNode,
  type FragmentDefinitionNode,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { snake } from '../search/names';

/**
 * The record schemas of the OpenAPI document, derived from what the REST operation answers: the keys
 * its `result` selects (aliases, fragments expanded), each typed and described by the GraphQL field it
 * reads (nullability included), and each nested selection a schema of its own, named after its
 * fragment without the `Rest` prefix (`...RestLocation` -> `Location`) or else after its GraphQL type
 * (`Hour`). A key under `@include`/`@skip` (an association `include` may leave out) is not required.
 */

type Schema = Record<string, any>;

/** JSON Schema of each scalar a REST record may read. A scalar missing here stops the generator. */
const SCALARS: Record<string, Schema> = {
  ID: { type: 'string', format: 'uuid' },
  UUID: { type: 'string', format: 'uuid' },
  String: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTimeISO: { type: 'string', format: 'date-time' },
  // graphql-scalars' SafeInt: an integer within ±(2^53 - 1).
  SafeInt: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
  // Any JSON value: the prose may narrow it (`"type": ["object", "null"]`).
  JSON: {},
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The schemas one or more REST operations answer, by name. */
export class RecordSchemas {
  readonly schemas = new Map<string, Schema>();
  private readonly fragments: Map<string, FragmentDefinitionNode>;

  /**
   * `refinements`: per GraphQL field (`Email.email`), what JSON Schema says and GraphQL cannot (`format`,
   * `enum`, `const`, `minimum`, a narrower `type`), applied wherever a REST selection reads the field.
   */
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly documents: readonly DefinitionNode[],
    private readonly refinements: Record<string, Schema> = {},
  ) {
    this.fragments = new Map(
      documents.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
    );
  }

  /** Adds the schema `name` of what `operationName` answers under `result` (and its nested schemas). */
  addRecord(name: string, operationName: string): void {
    const operation = this.documents.find(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === operationName,
    );
    if (!operation) throw new Error(`No REST operation ${operationName}`);
    const result = operation.selectionSet.selections.find((s) => s.kind === Kind.FIELD && (s.alias ?? s.name).value === 'result');
    if (!result || result.kind !== Kind.FIELD || !result.selectionSet) throw new Error(`${operationName} has no result field`);
    const root = operation.operation === 'mutation' ? this.schema.getMutationType() : this.schema.getQueryType();
    const field = root?.getFields()[result.name.value];
    if (!field) throw new Error(`${operationName}: the schema has no ${operation.operation} field ${result.name.value}`);
    const type = getNamedType(field.type);
    if (!isObjectType(type)) throw new Error(`${operationName}: ${result.name.value} is not an object type`);
    this.add(name, this.object(result.selectionSet, type, operationName));
  }

  /**
   * The schema of a GraphQL input type as a REST body takes it (snake_case keys, every one optional:
   * an update sends only what changes); nested inputs become schemas of their own names.
   */
  addInput(name: string, typeName: string): void {
    const type = this.schema.getType(typeName);
    if (!isInputObjectType(type)) throw new Error(`${typeName} is not an input type`);
    this.add(name, this.inputObject(type));
  }

  /** Refinements naming a field the GraphQL schema does not have (a misspelt or stale entry of the prose). */
  unknownRefinements(): string[] {
    return Object.keys(this.refinements).filter((coordinate) => {
      const [typeName, field] = coordinate.split('.');
      const type = this.schema.getType(typeName);
      return !isObjectType(type) || !field || !type.getFields()[field];
    });
  }

  private add(name: string, schema: Schema): void {
    const existing = this.schemas.get(name);
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new Error(`Two REST selections both describe the OpenAPI schema ${name} with different keys: give one a fragment of its own name`);
    }
    this.schemas.set(name, schema);
  }

  private object(set: SelectionSetNode, type: GraphQLObjectType, where: string): Schema {
    const entries = this.fields(set, type, true, where);
    // A description naming a camelCase field uses the key this record has for it.
    const keyOf = new Map(entries.map((e) => [e.field, e.key]));
    const prose = (text: string | null | undefined) =>
      text?.replace(/`([a-z][A-Za-z0-9]*)`/g, (whole, field: string) => (keyOf.has(field) ? `\`${keyOf.get(field)}\`` : whole));
    const optional = entries.filter((e) => !e.always).map((e) => `\`${e.key}\``);
    const description = [
      prose(type.description),
      optional.length ? `${list(optional)} ${optional.length > 1 ? 'are' : 'is'} present unless \`include\` leaves ${optional.length > 1 ? 'them' : 'it'} out.` : '',
    ]
      .filter(Boolean)
      .join(' ');
    return {
      type: 'object',
      ...(description ? { description } : {}),
      required: entries.filter((e) => e.always).map((e) => e.key),
      properties: Object.fromEntries(
        entries.map((e) => {
          const described = prose(e.description);
          return [e.key, { ...e.schema, ...(described ? { description: described } : {}) }];
        }),
      ),
      additionalProperties: false,
    };
  }

  /** The keys a selection answers, fragments expanded, with their schemas. */
  private fields(set: SelectionSetNode, type: GraphQLObjectType, always: boolean, where: string) {
    const out: Array<{ key: string; field: string; always: boolean; schema: Schema; description?: string | null }> = [];
    for (const s of set.selections) {
      const present = always && !s.directives?.some((d) => d.name.value === 'include' || d.name.value === 'skip');
      if (s.kind === Kind.FIELD) {
        const key = (s.alias ?? s.name).value;
        if (s.name.value === '__typename') {
          out.push({ key, field: s.name.value, always: present, schema: { type: 'string', const: type.name } });
          continue;
        }
        const field = type.getFields()[s.name.value];
        if (!field) throw new Error(`${where}: ${type.name} has no field ${s.name.value}`);
        if (out.some((o) => o.key === key)) throw new Error(`${where}: the key ${key} is selected twice`);
        const coordinate = `${type.name}.${s.name.value}`;
        const refinement = this.refinements[coordinate];
        const schema = { ...this.output(field.type, s.selectionSet, where), ...refinement };
        out.push({ key, field: s.name.value, always: present, schema, description: field.description });
        continue;
      }
      const fragment = s.kind === Kind.FRAGMENT_SPREAD ? this.fragments.get(s.name.value) : s;
      if (!fragment) throw new Error(`${where}: unknown fragment`);
      const condition = fragment.typeCondition ? this.schema.getType(fragment.typeCondition.name.value) : type;
      if (condition !== type) throw new Error(`${where}: a fragment on ${condition?.name} inside ${type.name} is not supported`);
      out.push(...this.fields(fragment.selectionSet, type, present, where));
    }
    return out;
  }

  private output(type: GraphQLOutputType, set: SelectionSetNode | undefined, where: string, nullable = true): Schema {
    if (isNonNullType(type)) return this.output(type.ofType, set, where, false);
    let schema: Schema;
    if (isListType(type)) schema = { type: 'array', items: this.output(type.ofType, set, where) };
    else if (isObjectType(type)) {
      if (!set) throw new Error(`${where}: ${type.name} needs a selection`);
      const name = this.nestedName(set, type);
      this.add(name, this.object(set, type, where));
      schema = ref(name);
    } else schema = this.leaf(type);
    return nullable ? orNull(schema) : schema;
  }

  private leaf(type: GraphQLOutputType | GraphQLInputType): Schema {
    const named = getNamedType(type);
    if (isEnumType(named)) return { type: 'string', enum: named.getValues().map((v) => v.value) };
    if (isScalarType(named)) {
      const schema = SCALARS[named.name];
      if (!schema) throw new Error(`OpenAPI: no JSON Schema for the scalar ${named.name} (src/rest/openapi-records.ts SCALARS)`);
      return { ...schema };
    }
    throw new Error(`OpenAPI: ${named.name} is not a leaf type`);
  }

  /** `...RestLocation` alone -> `Location`; any other selection -> its GraphQL type's name. */
  private nestedName(set: SelectionSetNode, type: GraphQLObjectType): string {
    const [only] = set.selections;
    if (set.selections.length === 1 && only.kind === Kind.FRAGMENT_SPREAD && !only.directives?.length) {
      return only.name.value.replace(/^Rest/, '');
    }
    return type.name;
  }

  private inputObject(type: GraphQLInputObjectType): Schema {
    return {
      type: 'object',
      ...(type.description ? { description: type.description } : {}),
      properties: Object.fromEntries(
        Object.values(type.getFields()).map((f) => [snake(f.name), { ...this.input(f.type), ...(f.description ? { description: f.description } : {}) }]),
      ),
    };
  }

  private input(type: GraphQLInputType, nullable = true): Schema {
    if (isNonNullType(type)) return this.input(type.ofType, false);
    let schema: Schema;
    if (isListType(type)) schema = { type: 'array', items: this.input(type.ofType) };
    else if (isInputObjectType(type)) {
      this.add(type.name, this.inputObject(type));
      schema = ref(type.name);
    } else schema = this.leaf(type);
    return nullable ? orNull(schema) : schema;
  }
}

/** The schema or `null`. */
export function orNull(s: Schema): Schema {
  if (s.$ref) return { anyOf: [s, { type: 'null' }] };
  if (!('type' in s)) return s; // any JSON value, null included
  const type = Array.isArray(s.type) ? s.type : [s.type];
  return {
    ...s,
    type: type.includes('null') ? type : [...type, 'null'],
    ...(s.enum && !s.enum.includes(null) ? { enum: [...s.enum, null] } : {}),
  };
}

/** `a`, `a and b`, `a, b and c`. */
function list(items: string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}` : items[0];
}
