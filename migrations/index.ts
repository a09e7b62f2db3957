import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000_initial } from './Migration20261122000000_initial';
import { Migration20261122010600_store_locator } from './Migration20261122010600_store_locator';

/** Every migration in order. A new migration file is added here too. */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122010600_store_locator', class: Migration20261122010600_store_locator },
];
