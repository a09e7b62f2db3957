import type { AppModule } from '../module';
import { ImportResolver } from './import.resolver';
import { importPolicy } from './import.policy';

/** CSV imports and the lead export (GraphQL here; the same code backs `leadnet import` and `leadnet export`). */
export const importModule: AppModule = {
  name: 'import',
  resolvers: [ImportResolver],
  policies: [importPolicy],
};
