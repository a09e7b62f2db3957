import {
  execute,
  getNamedType,
  getVariableValues,
  isInputObjectType,
  typeFromAST,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLInputObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import { BudgetedCache, stringBytes } from '../memory';
import { expandedSelections } from './cost';
import { inSpan, tracingOn } from '../tracing';

/** A document is compiled on its second execution: a one-off query does not pay for compiling. */
const COMPILE_AFTER = 2;
/**
 * Heap a compiled document retains per selection (fields, fragments and spreads, with every spread
 * expanded), measured at 1.4 to 1.9 KB over documents of 45 to 1,755 selections; rounded up.
 */
export const COMPILED_BYTES_PER_SELECTION = 2048;
/** What a document seen but not compiled takes: its key and hit count. */
const SEEN_BYTES = 64;

/** A document's entry: how often it ran, and its compiled form once it is (null: it runs uncompiled). */
interface Seen {
  hits: number;
  compiled?: CompiledQuery | null;
  bytes: number;
}

/**
 * Apollo Server with graphql-jit as its executor, through Apollo's gateway interface (the one way Apollo
 * lets an application execute an operation itself): parsing, validation (cost rules included), plugins
 * and error formatting stay Apollo's; a query or mutation document seen before runs as a function
 * graphql-jit compiled from it, which resolves the same schema, resolvers and graphql-shield rules as
 * graphql-js's `execute` without interpreting the document field by field. Subscriptions (served over
 * WebSocket elsewhere) and first sightings run on graphql-js.
 *
 * Compiled documents are kept within their memory budget (`graphql_compiled`, src/memory.ts), sized by
 * their expanded selections; a document whose compiled form would take more than a sixteenth of the
 * budget is never compiled and always runs on graphql-js.
 */
export function jitGateway(schema: GraphQLSchema, maxBytes?: number): GatewayInterface {
  const documents = new BudgetedCache<string, Seen>('graphql_compiled', { maxBytes, sizeOf: (seen, key) => stringBytes(key) + seen.bytes });
  const executor: GatewayExecutor = async ({ document, operation, operationName, queryHash, request, context }) => {
    const key = `${queryHash}:${operationName ?? ''}`;
    let entry = documents.get(key);
    if (!entry) documents.set(key, (entry = { hits: 0, bytes: SEEN_BYTES }));
    entry.hits++;
    if (entry.compiled === undefined && entry.hits >= COMPILE_AFTER) {
      const bytes = COMPILED_BYTES_PER_SELECTION * expandedSelections(document);
      const compiled = documents.fits(stringBytes(key) + bytes) ? compileOperation(schema, document, operation) : 'too large to keep compiled';
      // A new entry: lru-cache sizes an entry when it is set with another value.
      entry = typeof compiled === 'string' ? { hits: entry.hits, compiled: null, bytes: SEEN_BYTES } : { hits: entry.hits, compiled, bytes };
      documents.set(key, entry);
    }
    const compiled = entry.compiled;
    return inOperationSpan(operation, () =>
      compiled ? runCompiled(compiled, schema, operation, context, request.variables) : execute({ schema, document, operationName, variableValues: request.variables, contextValue: context }),
    );
  };
  return {
    async load() {
      return { executor };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    async stop() {},
  };
}

/**
 * The operation compiled by graphql-jit, or why it is not: a subscription, variables graphql-jit cannot
 * parse (`compilable`), or graphql-jit's own errors.
 */
export function compileOperation(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): CompiledQuery | string {
  if (operation.operation === 'subscription') return 'a subscription';
  if (!compilable(schema, operation)) return 'a variable of a recursive input type';
  const compiled = compileQuery(schema, document, operation.name?.value);
  return isCompiledQuery(compiled) ? compiled : (compiled.errors ?? []).map((e) => e.message).join('; ');
}

/**
 * graphql-jit compiles a parser for the operation's variables by walking their input types, without
 * noticing a type that contains itself: a variable whose type reaches a recursive one (`$where:
 * LeadWhere`, whose `_and` lists `LeadWhere`; `$aggs: [LeadFacetInput!]`, whose `where` is one) would
 * never finish compiling. Such operations run on graphql-js.
 */
export function compilable(schema: GraphQLSchema, operation: OperationDefinitionNode): boolean {
  return (operation.variableDefinitions ?? []).every((v) => {
    const type = typeFromAST(schema, v.type as any);
    const named = type && getNamedType(type);
    return !named || !isInputObjectType(named) || !reachesCycle(named);
  });
}

const cyclic = new WeakMap<GraphQLInputObjectType, boolean>();

/** Whether an input type is, or holds at any depth, a type that contains itself. */
function reachesCycle(type: GraphQLInputObjectType): boolean {
  let known = cyclic.get(type);
  if (known === undefined) {
    const onPath = new Set<GraphQLInputObjectType>();
    const done = new Set<GraphQLInputObjectType>();
    const visit = (t: GraphQLInputObjectType): boolean => {
      if (onPath.has(t)) return true;
      if (done.has(t)) return false;
      onPath.add(t);
      const found = Object.values(t.getFields()).some((f) => {
        const inner = getNamedType(f.type);
        return isInputObjectType(inner) && visit(inner);
      });
      onPath.delete(t);
      done.add(t);
      return found;
    };
    known = visit(type);
    cyclic.set(type, known);
  }
  return known;
}

/**
 * Runs a compiled operation once graphql-js has coerced its variables: a value graphql-js refuses gets
 * graphql-js's error (graphql-jit's own coercion is not made for hostile input: an object thousands of
 * levels deep where a String is expected overflows its stack).
 */
export function runCompiled(
  compiled: CompiledQuery,
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  context: unknown,
  variables: Readonly<Record<string, unknown>> | undefined,
): ExecutionResult | Promise<ExecutionResult> {
  if (!variables || coercedFor.get(variables) !== operation) {
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 50 });
    if (coerced.errors) return { errors: coerced.errors };
    // Variables that cannot change pass for this operation from now on.
    if (variables && immutable.has(variables)) coercedFor.set(variables, operation);
  }
  return compiled.query(undefined, context, variables ?? {});
}

/**
 * `run` inside the operation's span when tracing is on (`query LeadList`; src/tracing.ts):
 * the SQL statements and engine calls of its resolvers are its children. The span keeps the operation's
 * type, name and number of errors, never the document or the variables.
 */
export function inOperationSpan(operation: OperationDefinitionNode, run: () => ExecutionResult | Promise<ExecutionResult>): ExecutionResult | Promise<ExecutionResult> {
  if (!tracingOn()) return run();
  const type = operation.operation;
  const name = operation.name?.value;
  const attributes = { 'graphql.operation.type': type, ...(name && { 'graphql.operation.name': name }) };
  return inSpan(name ? `${type} ${name}` : type, { attributes }, async (span) => {
    const result = await run();
    if (result.errors?.length) span?.setAttribute('leadnet.graphql.errors', result.errors.length);
    return result;
  });
}

/** Variables frozen to the last value by `frozenVariables`. */
const immutable = new WeakSet<object>();
/** Of those, the ones graphql-js has coerced, and the operation they passed for. */
const coercedFor = new WeakMap<object, OperationDefinitionNode>();

/**
 * `variables` frozen, nested values included, for a caller that sends the same object with every request
 * of one kind (the REST facade keeps the variables of each list query string, src/rest/query.ts):
 * `runCompiled` coerces it once per operation.
 */
export function frozenVariables<T extends Record<string, unknown>>(variables: T): Readonly<T> {
  immutable.add(deepFreeze(variables));
  return variables;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
