import type { AppModule } from '../module';
import { CompanyRetailer } from './company-retailer.entity';
import { CompanyRetailerResolver } from './company-retailer.resolver';
import { companyRetailerPolicy } from './company-retailer.policy';
import { companyRetailerRest } from './company-retailer.rest';
import { companyRetailerSearch } from './company-retailer.search';
import { companyRetailerDemo } from './company-retailer.demo';

export const companyRetailerModule: AppModule = {
  name: 'company-retailer',
  entities: [CompanyRetailer],
  resolvers: [CompanyRetailerResolver],
  policies: [companyRetailerPolicy],
  connections: { companyRetailers: 'CompanyRetailer' },
  rest: [companyRetailerRest],
  openApiLists: { '/company_retailers': companyRetailerSearch },
  search: [companyRetailerSearch],
  demo: [companyRetailerDemo],
};
