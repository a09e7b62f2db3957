import type { AppModule } from '../module';
import { personalDataPolicy } from './personal-data.policy';
import { PersonalDataResolver } from './personal-data.resolver';
import { ErasureWorker, ERASURE_WORKER_LEADER } from './erasure.worker';
import { RetentionResolver } from './retention.resolver';
import { RetentionWorker, RETENTION_WORKER_LEADER } from './retention.worker';

/**
 * A person's data (docs/personal-data.md "Access" and "Erasure"): the export (GraphQL `personalData`,
 * `leadnet personal-data export`) and the erasure jobs and their ledger (GraphQL `erasePersonalData`,
 * `leadnet personal-data erase|resume-erasures|ledger|reapply-erasures`) and retention (GraphQL
 * `retentionSettings`, `updateRetentionSettings`, `retentionDryRun`, `leadnet personal-data retention`).
 */
export const personalDataModule: AppModule = {
  name: 'personal-data',
  resolvers: [PersonalDataResolver, RetentionResolver],
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
    // Retention erases through the same jobs, so it runs on the same switch.
    {
      name: 'retention-worker',
      leader: RETENTION_WORKER_LEADER,
      enabled: (config) => config.webhooks.worker,
      create: ({ deps }) => new RetentionWorker(deps.orm),
    },
  ],
};
