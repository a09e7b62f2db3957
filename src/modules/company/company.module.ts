import type { AppModule } from '../module';
import { Company } from './company.entity';
import { CompanyResolver } from './company.resolver';
import { companyPolicy } from './company.policy';
import { companyDemo } from './company.demo';
import { findDemoCompany } from '../demo/demo-seed';

export const companyModule: AppModule = {
  name: 'company',
  entities: [Company],
  resolvers: [CompanyResolver],
  policies: [companyPolicy],
  connections: { companies: 'Company' },
  demo: [companyDemo],
  // The start page links the demo company's store finder while it exists.
  home: { demoCompany: findDemoCompany },
};
