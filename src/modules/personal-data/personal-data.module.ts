import type { AppModule } from '../module';
import { personalDataPolicy } from './personal-data.policy';
import { PersonalDataResolver } from './personal-data.resolver';
import { ErasureWorker, ERASURE_WORKER_LEADER } from './erasure.worker';

/**
 * A person's data (docs/personal-data.md "Access" and "Erasure"): the export (GraphQL `personalData`,
 * `leadnet personal-data export`) and the erasure jobs and their ledger (GraphQL `erasePersonalData`,
 * `leadnet personal-data erase|resume-erasures|ledger|reapply-erasures`).
 */
export const personalDataModule: AppModule = {
  name: 'personal-data',
  resolvers: [PersonalDataResolver],
  policies: [personalDataPolicy],
  // Interrupted erasures resume in the background, on the webhook worker's switch (WEBHOOK_WORKER): the
  // `lead.erased` events a job ends with go out through that worker too.
  jobs: [
    {
      name: 'erasure-worker',
      leader: ERASURE_WORKER_LEADER,
      enabled: (config) => config.webhooks.worker,
      create: ({ deps }) => new ErasureWorker(deps.orm),
    },
  ],
};
