import type { AppModule } from '../module';
import { RoutingResolver } from './routing.resolver';
import { routingPolicy } from './routing.policy';

export const routingModule: AppModule = {
  name: 'routing',
  resolvers: [RoutingResolver],
  policies: [routingPolicy],
};
