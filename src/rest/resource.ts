import { Router, type Request, type Response } from 'express';
import { isInputObjectType, type GraphQLSchema } from 'graphql';
import type { Config } from '../config';
import type { Context } from '../context';
import { invalid, validationDetail } from '../errors';
import type { HttpError } from '../http/envelopes';
import { CreateGroups } from './create-groups';
import { httpErrorOf, type RestExecutor, type RunOptions } from './executor';
import { idempotencyKeyOf, idempotentWrite, REPLAYED_HEADER, type Answer, type SentAnswer } from './idempotency';
import { toGraphQLInput } from './input';
import { listVariablesReader, parseInclude, parseQueryString } from './query';
import { sendJson, sendJsonText } from '../http/json';

/** How one SPEC 4.2 resource maps onto its GraphQL operations (each aliases its root field `result`). */
export interface RestResource {
  path: string;
  /** Body root key of create and update, e.g. `product`. */
  root: string;
  /** List envelope key, e.g. `products`. */
  plural: string;
  /** The GraphQL input type of create/update bodies. */
  inputType: string;
  operations: {
    list?: string;
    show?: string;
    create?: string;
    update?: string;
    replace?: string;
    destroy?: string;
  };
  /** Associations `include` can name; each becomes an `include_<name>` boolean variable. */
  associations?: readonly string[];
  /**
   * Top-level body keys read beside the root and merged into the input (SPEC 4.4 sends a CRL's nested
   * objects this way); a key inside the root wins. With any of them present, an update may omit the root.
   */
  bodyKeys?: readonly string[];
  /**
   * `POST <path>/batch` (PRODUCT.md 11), beside a create: up to `max` creates under the plural root key (`{"leads": [...]}`,
   * each item what the create takes under `root`), run by `operation`, whose `inputs` variable takes the
   * items and whose `result` has one entry per item; each item is answered as the create answers it.
   */
  batch?: {
    operation: string;
    root: string;
    max: number;
    /**
     * Runs a batch of `items` in its turn of the process's batch budget, taken before anything holds a
     * database connection (an Idempotency-Key's transaction); the operation's own take inside it runs at once.
     */
    turn?: <T>(config: Config, items: number, work: () => Promise<T>) => Promise<T>;
  };
  /** Actions on one record, each `POST <path>/{id}/<name>` (`RestAction`). */
  actions?: readonly RestAction[];
}

/**
 * `POST <path>/{id}/<name>` (issue 42: a lead's `accept`, `decline`, `outcome`): runs `operation` with
 * `id`, the `include_` flags and the body's variables, and answers 200 with the record as its show
 * answers it. The body (not under a root key) is read by `variables`, or mapped onto the GraphQL input
 * type `inputType` as the variable `input` (unknown keys and wrong types as a create's body: 422 on the
 * attribute), after `mapBody` turned the contract's spelling of a value into GraphQL's.
 */
export interface RestAction {
  name: string;
  operation: string;
  /** The OpenAPI summary, e.g. `Record a lead's outcome`. */
  summary: string;
  inputType?: string;
  mapBody?: (body: Record<string, unknown>) => Record<string, unknown>;
  variables?: (body: Record<string, unknown>) => Record<string, unknown>;
  /** OpenAPI: the request body's schema (default `inputType`; neither: no body). */
  body?: string;
  /** OpenAPI: error statuses beyond every action's. */
  errors?: readonly number[];
  /** OpenAPI: for a status, the prose's response component that describes it instead of the generic one (e.g. 409). */
  responses?: Readonly<Record<number, string>>;
}

/** The answer of a batch: each item's status and body, as its single create would have answered. */
export interface BatchItemAnswer {
  status: number;
  body: unknown;
}

export type Handler = (req: Request, res: Response) => Promise<void>;

/** The CRUD routes of a resource. Errors propagate to the facade's error handler. */
export function resourceRouter(resource: RestResource, schema: GraphQLSchema, executor: RestExecutor, strict: () => boolean): Router {
  const router = Router();
  const ops = resource.operations;
  const include = (req: Request) =>
    Object.fromEntries(
      Object.entries(parseInclude(parseQueryString(req.originalUrl).include, resource.associations ?? [])).map(([k, v]) => [`include_${k}`, v]),
    );
  const inputType = () => {
    const type = schema.getType(resource.inputType);
    if (!isInputObjectType(type)) throw new Error(`${resource.inputType} is not an input type`);
    return type;
  };
  const missingRoot = () => invalid([validationDetail(resource.root, 'missing', `param is missing or the value is empty: ${resource.root}`)]);
  const input = (req: Request, creating: boolean) => {
    const body = isObject(req.body) ? req.body : {};
    const root = body[resource.root];
    const beside = Object.fromEntries((resource.bodyKeys ?? []).filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
    const rootOptional = !creating && Object.keys(beside).length > 0 && root === undefined;
    if (!isObject(root) && !rootOptional) throw missingRoot();
    return toGraphQLInput({ ...beside, ...(isObject(root) ? root : {}) }, inputType(), strict());
  };

  if (ops.list) {
    const name = ops.list;
    const listVariables = listVariablesReader(resource.associations ?? []);
    router.get(resource.path, async (req, res) => {
      const ctx = await executor.authenticated(req);
      const page = await executor.run(ctx, name, listVariables(req.originalUrl));
      sendJson(req, res, { [resource.plural]: page.nodes, meta: page.meta });
    });
  }
  if (ops.show) {
    const name = ops.show;
    router.get(`${resource.path}/:id`, async (req, res) => {
      sendJson(req, res, await executor.run(await executor.authenticated(req), name, { id: req.params.id, ...include(req) }));
    });
  }
  /**
   * A write: the query string, then the body, are read before any work (their 400 and 422 are never
   * stored); with an `Idempotency-Key` it runs under the key (src/rest/idempotency.ts). `turn`, given the
   * request, runs the write in the turn it waits for first.
   */
  const write =
    (
      prepare: (req: Request) => (ctx: Context, options: RunOptions) => Promise<Answer>,
      turn: (req: Request, ctx: Context) => <T>(work: () => Promise<T>) => Promise<T> = () => (work) => work(),
    ): Handler =>
    async (req, res) => {
      const ctx = await executor.authenticated(req);
      const key = idempotencyKeyOf(req);
      const work = prepare(req);
      const inTurn = turn(req, ctx);
      if (key === undefined) {
        send(req, res, await executor.shared(ctx, () => inTurn(() => work(ctx, {}))));
        return;
      }
      sendStored(req, res, await executor.shared(ctx, () => inTurn(() => idempotentWrite(executor, req, ctx, key, work))));
    };

  if (ops.create) {
    const name = ops.create;
    // Concurrent creates of one caller share a transaction and its commit (src/rest/create-groups.ts).
    const groups = resource.batch && new CreateGroups(executor, name, resource.batch.operation, resource.batch.max);
    router.post(
      resource.path,
      write((req) => {
        // The query string before the body: a 400 of its parameters wins over the body's 422.
        const flags = include(req);
        const variables = { input: input(req, true), ...flags };
        return async (ctx, options) => {
          // Under an Idempotency-Key the create runs in the key's own transaction (options.afterCommit).
          const grouped = groups && !options.afterCommit;
          return { status: 201, body: grouped ? await groups.write(ctx, variables.input, flags) : await executor.execute(ctx, name, variables, options) };
        };
      }),
    );
  }
  if (ops.create && resource.batch) {
    const batch = resource.batch;
    router.post(
      `${resource.path}/batch`,
      write((req) => {
        const flags = include(req);
        // Each item is what the create takes under its root key, and is refused as the create refuses it.
        const type = inputType();
        const items = batchItems(req, batch, (item) => {
          if (!isObject(item)) throw missingRoot();
          return toGraphQLInput(item, type, strict());
        });
        return async (ctx, options) => {
          const inputs = items.filter((i) => i.ok).map((i) => (i as { input: Record<string, unknown> }).input);
          const results = inputs.length ? await executor.executeItems(ctx, batch.operation, { inputs, ...flags }, options) : [];
          let next = 0;
          const answers: BatchItemAnswer[] = items.map((item) => {
            if (!item.ok) return { status: item.http.status, body: item.http.body };
            const result = results[next++];
            return result.ok ? { status: 201, body: result.value } : { status: result.http.status, body: result.http.body };
          });
          return { status: 200, body: { results: answers } };
        };
      }, (req, ctx) => (work) => (batch.turn ? batch.turn(ctx.config, (req.body[batch.root] as unknown[]).length, work) : work())),
    );
  }
  for (const [method, name] of [['patch', ops.update], ['put', ops.replace]] as const) {
    if (!name) continue;
    router[method](
      `${resource.path}/:id`,
      write((req) => {
        const flags = include(req);
        const variables = { id: req.params.id, input: input(req, false), ...flags };
        return async (ctx, options) => ({ status: 200, body: await executor.execute(ctx, name, variables, options) });
      }),
    );
  }
  for (const action of resource.actions ?? []) {
    router.post(
      `${resource.path}/:id/${action.name}`,
      write((req) => {
        const flags = include(req);
        const body = isObject(req.body) ? req.body : {};
        const variables: Record<string, unknown> = { ...(action.variables?.(body) ?? {}), id: req.params.id, ...flags };
        if (action.inputType) {
          const type = schema.getType(action.inputType);
          if (!isInputObjectType(type)) throw new Error(`${action.inputType} is not an input type`);
          variables.input = toGraphQLInput(action.mapBody ? action.mapBody(body) : body, type, strict());
        }
        return async (ctx, options) => ({ status: 200, body: await executor.execute(ctx, action.operation, variables, options) });
      }),
    );
  }
  if (ops.destroy) {
    const name = ops.destroy;
    router.delete(
      `${resource.path}/:id`,
      write((req) => {
        const variables = { id: req.params.id };
        return async (ctx, options) => {
          await executor.execute(ctx, name, variables, options);
          return { status: 204 };
        };
      }),
    );
  }
  return router;
}

/**
 * A batch body's items (`{"<root>": [...]}`), each mapped by `map` or answered by its error. A body
 * without the list is 422 `missing`; an empty list `too_short`, one longer than `max` `too_long`.
 */
function batchItems(
  req: Request,
  batch: { root: string; max: number },
  map: (item: unknown) => Record<string, unknown>,
): Array<{ ok: true; input: Record<string, unknown> } | { ok: false; http: HttpError }> {
  const items = isObject(req.body) ? req.body[batch.root] : undefined;
  if (!Array.isArray(items)) throw invalid([validationDetail(batch.root, 'missing', `param is missing or is not a list: ${batch.root}`)]);
  if (!items.length) throw invalid([validationDetail(batch.root, 'too_short', 'must have at least 1 item')]);
  if (items.length > batch.max) throw invalid([validationDetail(batch.root, 'too_long', `must have at most ${batch.max} items (got ${items.length})`)]);
  return items.map((item) => {
    try {
      return { ok: true as const, input: map(item) };
    } catch (e) {
      return { ok: false as const, http: httpErrorOf(e) };
    }
  });
}

/** A write's answer, as the facade sends every answer. */
function send(req: Request, res: Response, answer: Answer): void {
  if (answer.headers) res.set(answer.headers);
  if (answer.body === undefined) res.status(answer.status).end();
  else sendJson(req, res, answer.body, answer.status);
}

/** An answer under an `Idempotency-Key`: as first sent, with `Idempotent-Replayed: true` when replayed. */
function sendStored(req: Request, res: Response, answer: SentAnswer & { replayed?: true }): void {
  res.set(answer.headers);
  if (answer.replayed) res.set(REPLAYED_HEADER, 'true');
  if (answer.text === null) res.status(answer.status).end();
  else sendJsonText(req, res, answer.text, answer.status);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
