import type { AppModule } from '../module';
import { ResponseTimeResolver } from './response-time.resolver';
import { responseTimePolicy } from './response-time.policy';

/** First-response timers, escalation and response-time stats (docs/response-times.md). */
export const responseTimesModule: AppModule = {
  name: 'response-times',
  resolvers: [ResponseTimeResolver],
  policies: [responseTimePolicy],
};
