import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  GraphQLError,
  Kind,
  Lexer,
  Source,
  TokenKind,
  TypeInfo,
  ValidationContext,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  parse,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import type { ApolloServerPlugin } from '@apollo/server';
import { BudgetedCache, stringBytes } from '../memory';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { createComplexityRule, type ComplexityEstimator } from 'graphql-query-complexity';
import type { GraphqlLimits } from '../config';
import { AppError, queryTooComplex } from '../errors';
import { checkJson, LimitViolation } from '../limits';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../search/types';
import type { Caller } from '../auth/caller';

/**
 * GraphQL cost control for /graphql, in the order a request meets it:
 *
 * 1. `graphqlGate` (express, before the body is read): the key is checked first. No root field is
 *    open to callers without a key (test/graphql/cost.test.ts checks the policies), so such a request
 *    is refused with 401 UNAUTHENTICATED before its document is parsed or validated: no parsing,
 *    introspection or "Did you mean" suggestions for anonymous callers.
 * 2. `graphqlDocumentLimits` (express, after the JSON body): the document's bytes and lexical tokens,
 *    counted without building a syntax tree; the variables' depth and size; then the selections of
 *    the document with every fragment spread expanded (`expandedSelections`: each fragment's size is
 *    computed once, so a document of fragments that each spread the previous one twice costs what its
 *    text costs to read, not 2^n). Nothing after this step walks more than that many selections.
 * 3. `costValidationRules` (Apollo validation, cached per document): depth, aliases and directives,
 *    with graphql-armor's rules (each memoizes per fragment too); Apollo's `maxRecursiveSelections`
 *    repeats step 2's bound inside validation.
 * 4. `costPlugin` (Apollo `didResolveOperation`, with the request's variables): the estimated cost from
 *    graphql-query-complexity, where a page field multiplies by its `perPage` and a list field without
 *    one by `listFactor`; so the cycle `Lead.leadActivities -> LeadActivity.lead` grows by that factor
 *    on every turn and a deep one is refused. Each fragment's cost is computed once (`operationCost`).
 *
 * Subscriptions (WebSocket, src/modules/lead-events/lead-events.ws.ts) run the same steps through
 * `checkDocumentText`. Every refusal is a QUERY_TOO_COMPLEX error naming the limit, its value and its
 * configuration key. docs/graphql-limits.md lists the limits and what each costs to check.
 */

const CONFIG_KEYS = {
  documentBytes: 'GRAPHQL_MAX_DOCUMENT_BYTES',
  tokens: 'GRAPHQL_MAX_TOKENS',
  depth: 'GRAPHQL_MAX_DEPTH',
  aliases: 'GRAPHQL_MAX_ALIASES',
  directives: 'GRAPHQL_MAX_DIRECTIVES',
  selections: 'GRAPHQL_MAX_SELECTIONS',
  fieldPairs: 'GRAPHQL_MAX_FIELD_PAIRS',
  cost: 'GRAPHQL_MAX_COST',
} as const;

/** The body of a GraphQL response made of one error. */
function errorResponse(res: Response, status: number, error: GraphQLError): void {
  const { http: _http, ...extensions } = error.extensions as Record<string, unknown>;
  res.status(status).json({ errors: [{ message: error.message, extensions }] });
}

/** Whether the request carries an operation (a browser's GET for the landing page carries none). */
function carriesOperation(req: Request): boolean {
  if (req.method === 'POST') return true;
  return req.method === 'GET' && req.query.query !== undefined;
}

/**
 * Authenticates before anything of the body is read; the caller goes to `res.locals.caller` for the
 * context. A request with an operation and without a valid key is refused here.
 */
export function graphqlGate(authenticate: (header: string | undefined) => Promise<Caller | null>): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const caller = await authenticate(req.header('x-api-key'));
      res.locals.caller = caller;
      if (caller || !carriesOperation(req)) return next();
      // The body is left unread: drain it so the connection stays usable.
      req.resume();
      errorResponse(res, 401, new AppError('UNAUTHENTICATED', 'Unauthorized'));
    } catch (e) {
      next(e);
    }
  };
}

/** Counts a document's lexical tokens up to `max + 1`; null when it does not lex (the parser reports it). */
export function countTokens(query: string, max: number): number | null {
  try {
    const lexer = new Lexer(new Source(query));
    let n = 0;
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (++n > max) return n;
    }
    return n;
  } catch {
    return null;
  }
}

/**
 * The checks of a document's text, cheapest first: bytes, tokens (lexed, no syntax tree), then the
 * expanded selections of its parsed form. Null when it passes (or does not parse: the parser's error is
 * reported where the document is parsed again).
 */
export function checkDocumentText(query: string, limits: GraphqlLimits, accepted?: AcceptedDocuments): AppError | null {
  const bytes = Buffer.byteLength(query, 'utf8');
  if (bytes > limits.maxDocumentBytes) {
    return queryTooComplex('document size in bytes', limits.maxDocumentBytes, bytes, CONFIG_KEYS.documentBytes);
  }
  const key = accepted && createHash('sha256').update(query).digest('base64');
  if (key && accepted.get(key)) return null;
  const tokens = countTokens(query, limits.maxTokens);
  if (tokens !== null && tokens > limits.maxTokens) {
    return queryTooComplex('token count', limits.maxTokens, null, CONFIG_KEYS.tokens);
  }
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: limits.maxTokens });
  } catch {
    return null;
  }
  const selections = expandedSelections(document);
  if (selections > limits.maxSelections) {
    return queryTooComplex('selection count', limits.maxSelections, Number.isSafeInteger(selections) ? selections : null, CONFIG_KEYS.selections);
  }
  // Before validation, whose OverlappingFieldsCanBeMerged would compare these pairs one by one.
  const pairs = overlappingFieldPairs(document, limits.maxFieldPairs);
  if (pairs > limits.maxFieldPairs) return queryTooComplex('same-name field pair count', limits.maxFieldPairs, null, CONFIG_KEYS.fieldPairs);
  if (key) accepted.set(key, true);
  return null;
}

/** Hashes of documents that passed `checkDocumentText`: a dashboard's repeated query is parsed once. */
export type AcceptedDocuments = BudgetedCache<string, true>;

/** The `graphql_accepted` cache, within its memory budget (src/memory.ts). */
export function acceptedDocuments(): AcceptedDocuments {
  return new BudgetedCache('graphql_accepted', { sizeOf: (_accepted, key) => stringBytes(key) });
}

/** The document's size, tokens and expanded selections, and the variables' size, checked before Apollo parses it. */
export function graphqlDocumentLimits(limits: GraphqlLimits): RequestHandler {
  const accepted = acceptedDocuments();
  return (req: Request, res: Response, next: NextFunction) => {
    const query = req.method === 'GET' ? req.query.query : (req.body as any)?.query;
    if (typeof query !== 'string') return next();
    const refused = checkDocumentText(query, limits, accepted);
    if (refused) return errorResponse(res, 400, refused);
    // Variables of a bounded depth and size: graphql-js coerces a value of a recursive input type
    // (`LeadWhere`) by recursion, which a value thousands of levels deep overflows. Text is checked
    // where it is used, with the field's name (src/limits.ts).
    try {
      const variables = req.method === 'GET' ? parsedOrNull(req.query.variables) : (req.body as any)?.variables;
      checkJson(variables, { maxDepth: MAX_VARIABLES_DEPTH, text: false });
    } catch (e) {
      if (e instanceof LimitViolation) return errorResponse(res, 400, new AppError('BAD_USER_INPUT', `\`variables\` ${e.message}`));
      throw e;
    }
    if (query.length > LARGE_DOCUMENT_CHARS) setImmediate(next);
    else next();
  };
}

/**
 * Documents longer than this hand the event loop back between the steps of their admission (the text's
 * checks, Apollo's parse and validation, the cost estimate, execution), each step a few milliseconds of
 * one core for a document near the limits: other callers' requests (a `/healthz`, a small list) are
 * served between them instead of waiting for the whole of it. Smaller documents go through in one turn.
 */
export const LARGE_DOCUMENT_CHARS = 4096;

/** Resolves in the event loop's next check phase: a document takes one step a turn, and other callers' I/O is read between its steps. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The selections (fields, inline fragments and fragment spreads) of every operation of `document` with
 * each fragment spread replaced by the fragment's selections, as Apollo's `maxRecursiveSelections` counts
 * them. Each fragment's size is computed once and remembered, so this walks the document's text once
 * whatever the expanded count (which may be astronomically large, or Infinity). A spread of an unknown
 * fragment, or of one on its own spread path (a cycle), adds nothing: validation refuses both.
 */
export function expandedSelections(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(d.name.value)) fragments.set(d.name.value, d);
  }
  const sizes = new Map<string, number>();
  const onPath = new Set<string>();
  const fragmentSize = (name: string): number => {
    const known = sizes.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    if (!fragment || onPath.has(name)) return 0;
    onPath.add(name);
    const size = setSize(fragment.selectionSet);
    onPath.delete(name);
    sizes.set(name, size);
    return size;
  };
  const setSize = (set: SelectionSetNode | undefined): number => {
    let size = 0;
    for (const s of set?.selections ?? []) size += 1 + (s.kind === Kind.FRAGMENT_SPREAD ? fragmentSize(s.name.value) : setSize(s.selectionSet));
    return size;
  };
  let total = 0;
  for (const d of document.definitions) if (d.kind === Kind.OPERATION_DEFINITION) total += setSize(d.selectionSet);
  return total;
}

/**
 * An upper bound of the field comparisons graphql-js's OverlappingFieldsCanBeMerged makes for `document`,
 * counted up to just past `max`. The rule compares every two fields of one selection set that answer under
 * the same name (fragment spreads and inline fragments merged into the set), then, for each such pair, their
 * sub-selections the same way, and every two fragments spread directly in one set: work that grows with the square
 * of the repeats (`{ leads(page: 1) leads(page: 2) ... leads(page: 495) }` is 122,265 pairs, each a conflict
 * with its message). Counted here on the merged selections: k fields of one name are k(k-1)/2 pairs, and
 * their sub-selections are merged into one set and counted again, which covers the pairs the rule compares
 * across them. The rule checks every selection set of the document, fragment definitions included (spread
 * or not), so each operation and each fragment definition is a root of the count. The walk visits each
 * selection once per merged set it reaches; past `maxVisits` (a document whose fragments expand beyond any
 * real one) the count is Infinity.
 */
export function overlappingFieldPairs(document: DocumentNode, max: number, maxVisits = 100_000): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(d.name.value)) fragments.set(d.name.value, d);
  }
  let pairs = 0;
  let visits = 0;
  /**
   * The fields of `sets` merged, by response name, fragments followed once per set (a cycle stops). The rule
   * compares every two fragments spread directly in a set (or in its inline fragments), not those they spread.
   */
  const collect = (sets: readonly SelectionSetNode[]): Map<string, FieldNode[]> => {
    const byName = new Map<string, FieldNode[]>();
    const spread = new Set<string>();
    let direct = 0;
    const add = (set: SelectionSetNode, inFragment: boolean) => {
      for (const s of set.selections) {
        if (++visits > maxVisits) pairs = Infinity;
        if (s.kind === Kind.FIELD) {
          const name = s.alias?.value ?? s.name.value;
          const fields = byName.get(name);
          if (fields) fields.push(s);
          else byName.set(name, [s]);
        } else if (s.kind === Kind.INLINE_FRAGMENT) {
          add(s.selectionSet, inFragment);
        } else if (!spread.has(s.name.value)) {
          spread.add(s.name.value);
          if (!inFragment) direct++;
          const fragment = fragments.get(s.name.value);
          if (fragment) add(fragment.selectionSet, true);
        }
      }
    };
    for (const set of sets) add(set, false);
    pairs += (direct * (direct - 1)) / 2;
    return byName;
  };
  const walk = (sets: readonly SelectionSetNode[]): void => {
    for (const fields of collect(sets).values()) {
      pairs += (fields.length * (fields.length - 1)) / 2;
      if (pairs > max) return;
      const inner = fields.flatMap((f) => (f.selectionSet ? [f.selectionSet] : []));
      if (inner.length > 0) walk(inner);
      if (pairs > max) return;
    }
  };
  for (const d of document.definitions) {
    if (d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION) walk([d.selectionSet]);
    if (pairs > max) break;
  }
  return pairs;
}

/** Deeper than any input of the schema needs (a `where` of 10 nested `_or`s is about 25). */
const MAX_VARIABLES_DEPTH = 64;

/** A GET request's `variables` parameter as JSON (Apollo reports one that does not parse). */
function parsedOrNull(text: unknown): unknown {
  try {
    return typeof text === 'string' ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** Reports an armor refusal as the service's own error; `found` is read from armor's message. */
function reportAs(limit: string, maximum: number, configKey: string) {
  return (context: ValidationContext | null, error: GraphQLError) => {
    const found = /found (\d+)/.exec(error.message);
    context?.reportError(queryTooComplex(limit, maximum, found ? Number(found[1]) : null, configKey));
  };
}

/** Depth, aliases and directives (graphql-armor), as Apollo validation rules. */
export function costValidationRules(limits: GraphqlLimits): ValidationRule[] {
  const common = { exposeLimits: true, propagateOnRejection: false };
  return [
    maxDepthRule({ ...common, n: limits.maxDepth, flattenFragments: true, onReject: [reportAs('depth', limits.maxDepth, CONFIG_KEYS.depth)] }),
    maxAliasesRule({ ...common, n: limits.maxAliases, onReject: [reportAs('alias count', limits.maxAliases, CONFIG_KEYS.aliases)] }),
    maxDirectivesRule({ ...common, n: limits.maxDirectives, onReject: [reportAs('directive count', limits.maxDirectives, CONFIG_KEYS.directives)] }),
  ];
}

/** A page of a list field: `perPage` as the resolver will read it (default 50, at most 500). */
function pageSize(perPage: unknown): number {
  if (typeof perPage !== 'number' || !Number.isFinite(perPage)) return DEFAULT_PER_PAGE;
  return Math.min(Math.max(Math.trunc(perPage), 1), MAX_PER_PAGE);
}

/**
 * The cost of a field: 0 for scalars, 1 for an object plus what is selected in it; a field taking
 * `perPage` (a connection: `first`/`last`) multiplies its selection by the page size, any other list
 * of objects by `listFactor`. A page's `nodes` and a connection's `edges` and `nodes` are not
 * multiplied again.
 */
export function costEstimator(listFactor: number): ComplexityEstimator {
  return ({ type, field, args, childComplexity }) => {
    const named = getNamedType(field.type);
    if (!isCompositeType(named)) return 0;
    if (field.args.some((a) => a.name === 'perPage')) return 1 + pageSize(args.perPage) * childComplexity;
    // A cursor connection: `first` or `last` records (default 50).
    if (field.args.some((a) => a.name === 'first')) return 1 + pageSize(args.first ?? args.last) * childComplexity;
    const fields = 'getFields' in type ? type.getFields() : {};
    const isPageNodes = (field.name === 'nodes' && 'meta' in fields) || ((field.name === 'nodes' || field.name === 'edges') && 'pageInfo' in fields);
    if (isListType(getNullableType(field.type)) && !isPageNodes) return listFactor * (1 + childComplexity);
    return 1 + childComplexity;
  };
}

/** graphql-query-complexity's visitor (its class is not exported; `createComplexityRule` builds one). */
type ComplexityVisitor = ReturnType<ReturnType<typeof createComplexityRule>>;

/**
 * Has the visitor compute each fragment's cost once per document: the library walks a fragment again at
 * every spread, 2^n times for n fragments that each spread the previous one twice. A fragment's cost
 * depends only on its own selections, its type condition and the variables, all fixed for one
 * computation, so the remembered cost is the one the walk would find again. The visitor's recursion goes
 * through `this.nodeComplexity`, which the instance property below shadows.
 */
function memoizeFragments(visitor: ComplexityVisitor): ComplexityVisitor {
  const walk = visitor.nodeComplexity.bind(visitor);
  const fragmentCosts = new Map<FragmentDefinitionNode, number>();
  visitor.nodeComplexity = (node, typeDef, activeFragments) => {
    if (node.kind !== Kind.FRAGMENT_DEFINITION) return walk(node, typeDef, activeFragments);
    let cost = fragmentCosts.get(node);
    if (cost === undefined) {
      cost = walk(node, typeDef, activeFragments);
      fragmentCosts.set(node, cost);
    }
    return cost;
  };
  return visitor;
}

/**
 * The estimated cost of an operation with its variables (graphql-query-complexity's estimate, with
 * fragments memoized). It never throws for the request's input: variables that do not fit the operation
 * leave it at 0 (execution refuses the whole operation), and a field whose arguments do not coerce adds
 * nothing (execution answers that field with an error and resolves nothing under it). graphql-query-
 * complexity's own `getComplexity` throws in both cases, and a cost check that let such an operation
 * through unmeasured would run the rest of it whatever its cost.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
  listFactor: number,
): number {
  const typeInfo = new TypeInfo(schema);
  const context = new ValidationContext(schema, document, typeInfo, () => undefined);
  const visitor = memoizeFragments(
    createComplexityRule({ maximumComplexity: Infinity, estimators: [costEstimator(listFactor)], variables, operationName, maxQueryNodes: Infinity })(context),
  );
  visit(document, visitWithTypeInfo(typeInfo, visitor as any));
  return visitor.complexity;
}

/** Refuses an operation whose estimated cost is over the limit, before it executes. */
export function costPlugin(limits: GraphqlLimits): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, request, operationName }) {
          const large = (request.query?.length ?? 0) > LARGE_DOCUMENT_CHARS;
          if (large) await nextTurn();
          const cost = operationCost(schema, document, request.variables, operationName ?? undefined, limits.listFactor);
          if (cost > limits.maxCost) throw queryTooComplex('cost', limits.maxCost, cost, CONFIG_KEYS.cost);
          if (large) await nextTurn();
        },
      };
    },
  };
}
