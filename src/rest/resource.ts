import { Router, type Request, type Response } from 'express';
import { isInputObjectType, type GraphQLSchema } from 'graphql';
import { invalid, validationDetail } from '../errors';
import type { RestExecutor } from './executor';
import { toGraphQLInput } from './input';
import { listVariablesReader, parseInclude, parseQueryString } from './query';
import { sendJson } from '../http/json';

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
  const input = (req: Request, creating: boolean) => {
    const body = isObject(req.body) ? req.body : {};
    const root = body[resource.root];
    const beside = Object.fromEntries((resource.bodyKeys ?? []).filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
    const rootOptional = !creating && Object.keys(beside).length > 0 && root === undefined;
    if (!isObject(root) && !rootOptional) {
      throw invalid([validationDetail(resource.root, 'missing', `param is missing or the value is empty: ${resource.root}`)]);
    }
    const type = schema.getType(resource.inputType);
    if (!isInputObjectType(type)) throw new Error(`${resource.inputType} is not an input type`);
    return toGraphQLInput({ ...beside, ...(isObject(root) ? root : {}) }, type, strict());
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
  if (ops.create) {
    const name = ops.create;
    router.post(resource.path, async (req, res) => {
      const ctx = await executor.authenticated(req);
      // The query string before the body: a 400 of its parameters wins over the body's 422.
      const flags = include(req);
      sendJson(req, res, await executor.run(ctx, name, { input: input(req, true), ...flags }), 201);
    });
  }
  for (const [method, name] of [['patch', ops.update], ['put', ops.replace]] as const) {
    if (!name) continue;
    router[method](`${resource.path}/:id`, async (req, res) => {
      const ctx = await executor.authenticated(req);
      const flags = include(req);
      sendJson(req, res, await executor.run(ctx, name, { id: req.params.id, input: input(req, false), ...flags }));
    });
  }
  if (ops.destroy) {
    const name = ops.destroy;
    router.delete(`${resource.path}/:id`, async (req, res) => {
      await executor.run(await executor.authenticated(req), name, { id: req.params.id });
      res.status(204).end();
    });
  }
  return router;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
