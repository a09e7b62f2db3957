import type { AppModule } from '../module';
import { RetailerLocation } from './retailer-location.entity';
import { Hour } from './hour.entity';
import { RetailerLocationResolver } from './retailer-location.resolver';
import { retailerLocationPolicy } from './retailer-location.policy';
import { retailerLocationDemo } from './retailer-location.demo';

export const retailerLocationModule: AppModule = {
  name: 'retailer-location',
  entities: [RetailerLocation, Hour],
  resolvers: [RetailerLocationResolver],
  policies: [retailerLocationPolicy],
  connections: { retailerLocations: 'RetailerLocation' },
  demo: [retailerLocationDemo],
};
