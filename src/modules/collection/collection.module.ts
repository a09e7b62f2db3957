import type { AppModule } from '../module';
import { Collection } from './collection.entity';
import { CollectionResolver } from './collection.resolver';
import { collectionPolicy } from './collection.policy';
import { collectionDemo } from './collection.demo';

export const collectionModule: AppModule = {
  name: 'collection',
  entities: [Collection],
  resolvers: [CollectionResolver],
  policies: [collectionPolicy],
  connections: { collections: 'Collection' },
  demo: [collectionDemo],
};
