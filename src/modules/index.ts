import type { AppModule } from './module';
import { leadModule } from './lead/lead.module';
import { companyRetailerModule } from './company-retailer/company-retailer.module';
import { companyRetailerLocationModule } from './company-retailer-location/company-retailer-location.module';
import { productModule } from './product/product.module';
import { companyModule } from './company/company.module';
import { retailerModule } from './retailer/retailer.module';
import { retailerLocationModule } from './retailer-location/retailer-location.module';
import { territoryModule } from './territory/territory.module';
import { companyStoreTypeModule } from './company-store-type/company-store-type.module';
import { collectionModule } from './collection/collection.module';
import { contactModule } from './contact/contact.module';
import { userModule } from './user/user.module';
import { leadEventsModule } from './lead-events/lead-events.module';
import { routingModule } from './routing/routing.module';
import { webhooksModule } from './webhooks/webhooks.module';
import { importModule } from './import/import.module';
import { siteKeysModule } from './site-keys/site-keys.module';
import { storeLocatorModule } from './store-locator/store-locator.module';
import { locatorDemandModule } from './locator-demand/locator-demand.module';
import { notificationsModule } from './notifications/notifications.module';
import { responseTimesModule } from './response-times/response-times.module';
import { leadOutcomesModule } from './lead-outcomes/lead-outcomes.module';
import { auditModule } from './audit/audit.module';
import { personalDataModule } from './personal-data/personal-data.module';
import { storePagesModule } from './store-pages/store-pages.module';
import type { SearchDocument } from '../search/types';
import type { RestResource } from '../rest/resource';
import type { ListDocuments } from '../rest/openapi';

export type { AppModule } from './module';

/**
 * Every feature module of the service. The top (src/app.ts, mikro-orm.config.ts, the CLI) hands this
 * list to the layers, which build the schema, the /v1 routes, OpenAPI, the search indexes and the
 * entity list from it. REST resources keep this order (SPEC 4.2: leads, lead activities, company
 * retailers, their locations, products).
 */
export const modules: readonly AppModule[] = [
  leadModule,
  companyRetailerModule,
  companyRetailerLocationModule,
  productModule,
  companyModule,
  retailerModule,
  retailerLocationModule,
  territoryModule,
  companyStoreTypeModule,
  collectionModule,
  contactModule,
  userModule,
  leadEventsModule,
  routingModule,
  webhooksModule,
  importModule,
  // Before the store locator: its `/store_locator/challenge` and `/{id}/leads` routes and their CORS come first.
  siteKeysModule,
  storeLocatorModule,
  locatorDemandModule,
  notificationsModule,
  responseTimesModule,
  leadOutcomesModule,
  auditModule,
  personalDataModule,
  storePagesModule,
];

/** The search documents of these modules (a search engine indexes each). */
export const searchDocuments: SearchDocument[] = modules.flatMap((m) => m.search ?? []);

/** The /v1 resources of these modules, in SPEC 4.2 order. */
export const restResources: RestResource[] = modules.flatMap((m) => m.rest ?? []);

/** The REST list endpoints and their search documents (OpenAPI's `opts` fields). */
export const openApiLists: ListDocuments = Object.assign({}, ...modules.map((m) => m.openApiLists ?? {}));
