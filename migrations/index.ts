import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000_initial } from './Migration20261122000000_initial';
import { Migration20261122010400_lead_activity_seq } from './Migration20261122010400_lead_activity_seq';

/** Every migration in order. A new migration file is added here too. */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122010400_lead_activity_seq', class: Migration20261122010400_lead_activity_seq },
];
