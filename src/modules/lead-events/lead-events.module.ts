import type { AppModule } from '../module';
import { LeadEventResolver } from './lead-events.resolver';
import { leadEventPolicy } from './lead-events.policy';

/** The `leadEvents` subscription; its hub and WebSocket server are started by src/app.ts. */
export const leadEventsModule: AppModule = {
  name: 'lead-events',
  resolvers: [LeadEventResolver],
  policies: [leadEventPolicy],
};
