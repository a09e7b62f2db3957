import type { EntityManager } from '@mikro-orm/postgresql';

/** Waits for the demo seed's transaction-scoped advisory lock: two processes seeding at once take turns. */
export async function lockDemoSeed(tx: EntityManager): Promise<void> {
  await tx.execute(`select pg_advisory_xact_lock(hashtext('leadnet.demo-seed'))`);
}

/** The company whose company admin has this e-mail address, if any. */
export async function companyOfAdmin(em: EntityManager, email: string): Promise<{ id: string; name: string } | null> {
  const rows = await em
    .getConnection()
    .execute<Array<{ id: string; name: string }>>(`select c.id, c.name from companies c join users u on u.company_id = c.id where u.email = ? and u.role = 'company_admin' limit 1`, [email]);
  return rows[0] ?? null;
}

/**
 * The rest of the transaction queues no notification (the notification events' trigger reads
 * `leadnet.quiet_notifications`, Migration20261206150900_quiet_demo_seed): the demo seed's leads are never mailed.
 */
export async function quietNotifications(tx: EntityManager): Promise<void> {
  await tx.execute(`select set_config('leadnet.quiet_notifications', 'on', true)`);
}
