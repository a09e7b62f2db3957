import type { AppModule } from '../module';
import { CompanyStoreType } from './company-store-type.entity';
import { CompanyStoreTypeResolver } from './company-store-type.resolver';
import { companyStoreTypePolicy } from './company-store-type.policy';
import { companyStoreTypeDemo } from './company-store-type.demo';

export const companyStoreTypeModule: AppModule = {
  name: 'company-store-type',
  entities: [CompanyStoreType],
  resolvers: [CompanyStoreTypeResolver],
  policies: [companyStoreTypePolicy],
  connections: { companyStoreTypes: 'CompanyStoreType' },
  demo: [companyStoreTypeDemo],
};
