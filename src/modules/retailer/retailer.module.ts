import type { AppModule } from '../module';
import { Retailer } from './retailer.entity';
import { RetailerResolver } from './retailer.resolver';
import { retailerPolicy } from './retailer.policy';
import { retailerDemo } from './retailer.demo';

export const retailerModule: AppModule = {
  name: 'retailer',
  entities: [Retailer],
  resolvers: [RetailerResolver],
  policies: [retailerPolicy],
  connections: { retailers: 'Retailer' },
  demo: [retailerDemo],
};
