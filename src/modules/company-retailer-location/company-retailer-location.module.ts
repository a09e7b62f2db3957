import type { AppModule } from '../module';
import { CompanyRetailerLocation } from './company-retailer-location.entity';
import { DeliveryArea } from './delivery-area.entity';
import { HourException } from './hour-exception.entity';
import { CompanyRetailerLocationResolver } from './company-retailer-location.resolver';
import { crlPolicy } from './company-retailer-location.policy';
import { companyRetailerLocationRest } from './company-retailer-location.rest';
import { crlSearch } from './company-retailer-location.search';
import { crlDemo } from './company-retailer-location.demo';

export const companyRetailerLocationModule: AppModule = {
  name: 'company-retailer-location',
  entities: [CompanyRetailerLocation, DeliveryArea, HourException],
  resolvers: [CompanyRetailerLocationResolver],
  policies: [crlPolicy],
  connections: { companyRetailerLocations: 'CompanyRetailerLocation' },
  rest: [companyRetailerLocationRest],
  openApiLists: { '/company_retailer_locations': crlSearch },
  search: [crlSearch],
  demo: [crlDemo],
};
