import type { AppModule } from '../module';
import { locatorDemandPolicy } from './locator-demand.policy';
import { demandFlusher } from './locator-demand.recorder';
import { LocatorDemandResolver } from './locator-demand.resolver';
import { DemandRetentionWorker, LOCATOR_DEMAND_RETENTION_LEADER } from './locator-demand.retention';

/**
 * What visitors searched for (docs/locator-demand.md): the store locator's searches counted in memory
 * (`demandObserver`, handed to the locator by its module), flushed by each process every few seconds and
 * on shutdown, old days deleted by one process; GraphQL `locatorDemand`.
 */
export const locatorDemandModule: AppModule = {
  name: 'locator-demand',
  resolvers: [LocatorDemandResolver],
  policies: [locatorDemandPolicy],
  start: ({ deps }) => {
    if (!deps.config.locatorDemand.enabled) return { stop: async () => undefined };
    const flusher = demandFlusher(deps);
    flusher.start();
    return { stop: () => flusher.stop() };
  },
  jobs: [
    {
      name: 'locator-demand-retention',
      leader: LOCATOR_DEMAND_RETENTION_LEADER,
      enabled: (config) => config.locatorDemand.enabled,
      create: ({ deps }) => new DemandRetentionWorker(deps.orm, deps.config.locatorDemand.retentionDays),
    },
  ],
};
