import type { AppModule } from '../module';
import { Territory } from './territory.entity';
import { TerritoryResolver } from './territory.resolver';
import { territoryPolicy } from './territory.policy';
import { territoryDemo } from './territory.demo';

export const territoryModule: AppModule = {
  name: 'territory',
  entities: [Territory],
  resolvers: [TerritoryResolver],
  policies: [territoryPolicy],
  connections: { territories: 'Territory' },
  demo: [territoryDemo],
};
