import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { leaderLocked, type Worker } from '../../db/leader';
import { ResponseTimeWorker, RESPONSE_TIME_WORKER_LEADER, type ResponseTimeWorkerOptions } from './response-time.worker';

/** Runs the response-time worker in one process at a time (leader lock) unless NOTIFICATION_WORKER=false. */
export function startResponseTimes(orm: MikroORM, config: Config, options: ResponseTimeWorkerOptions = {}): Worker {
  if (!config.notifications.worker) return { start() {}, stop: async () => undefined };
  const lock = leaderLocked(orm, RESPONSE_TIME_WORKER_LEADER, new ResponseTimeWorker(orm, options), 'response-time-worker', config.workerLockRetryMs);
  lock.start();
  return { start() {}, stop: () => lock.stop() };
}
