import type { Router } from 'express';
import type { ContextDeps } from '../context';
import type { GraphqlContribution } from '../graphql/schema';
import type { EntityContribution } from '../db/entities';
import type { RestResource } from '../rest/resource';
import type { ListDocuments } from '../rest/openapi';
import type { SearchDocument } from '../search/types';
import type { ResourcePolicy } from '../access/policy';
import type { RuntimeContribution } from '../runtime';
import type { HomeContribution } from '../home/home.router';
import type { DemoPart } from './demo/demo-part';

/**
 * One feature module: everything the lower layers need from a resource folder, in one object
 * (`<name>.module.ts`), listed once in `src/modules/index.ts`. Each layer defines the part it reads
 * (`GraphqlContribution`, `EntityContribution`, ...) and is handed the list at the top (src/app.ts,
 * mikro-orm.config.ts, the CLI): no lower folder imports a module. See docs/architecture.md.
 */
export interface AppModule extends GraphqlContribution, EntityContribution, RuntimeContribution, HomeContribution {
  /** The folder's name, e.g. `lead`. */
  name: string;
  /** Its /v1 resources (SPEC 4.2), each a set of `.rest.graphql` operations. */
  rest?: readonly RestResource[];
  /** Routes of its own under /v1 that are not GraphQL operations (the store locator). */
  restRoutes?: (deps: ContextDeps) => Router;
  /** Its REST list endpoints and the search documents their `q` and `opts` read (OpenAPI). */
  openApiLists?: ListDocuments;
  /** The search documents a search engine keeps a copy of (indexes, outbox triggers, `leadnet reindex`). */
  search?: readonly SearchDocument[];
  /** One policy per resource (`<name>.policy.ts`): the shield map comes from these. */
  policies?: readonly ResourcePolicy<any, any, any>[];
  /** Its share of the demo network (`<name>.demo.ts`), which `seedDemo` runs after the parts each names. */
  demo?: readonly DemoPart[];
}
