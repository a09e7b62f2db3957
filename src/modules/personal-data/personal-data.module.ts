import type { AppModule } from '../module';
import { personalDataPolicy } from './personal-data.policy';
import { PersonalDataResolver } from './personal-data.resolver';

/**
 * A person's data (docs/personal-data.md "Access" and "Erasure"): the export (GraphQL `personalData`,
 * `leadnet personal-data export`) and the erasure jobs and their ledger (GraphQL `erasePersonalData`,
 * `leadnet personal-data erase|resume-erasures|ledger|reapply-erasures`).
 */
export const personalDataModule: AppModule = {
  name: 'personal-data',
  resolvers: [PersonalDataResolver],
  policies: [personalDataPolicy],
};
