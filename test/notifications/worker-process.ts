// A notification worker alone in its own process (`node --import tsx test/notifications/worker-process.ts`),
// polling the database named by DATABASE_URL without the leader lock: what two replicas do when a network
// partition hides a lost lock. Prints `notification worker started` once it polls; SIGTERM stops it.
import 'reflect-metadata';
import { parseConfig } from '../../src/config';
import { initAppOrm } from '../../mikro-orm.config';
import { NotificationWorker } from '../../src/modules/notifications/notification.worker';

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const orm = await initAppOrm(config.databaseUrl!);
  const worker = new NotificationWorker(orm, config);
  worker.start();
  // The interval is unref'd: this keeps the process alive until it is told to stop.
  const alive = setInterval(() => undefined, 60_000);
  process.stdout.write(`notification worker started pid=${process.pid}\n`);
  process.once('SIGTERM', () => {
    clearInterval(alive);
    void worker
      .stop()
      .then(() => orm.close())
      .then(() => process.exit(0));
  });
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
