import type { MikroORM } from '@mikro-orm/postgresql';
import { initAppOrm } from '../../mikro-orm.config';
import { OfflineGeocoder } from '../../src/geo/offline-geocoder';
import { createTestDatabase } from './database';

/** The offline geocoder on a database of its own (its city table, `geo_city`, is filled by a migration). */
export async function offlineGeocoder(): Promise<{ geocoder: OfflineGeocoder; orm: MikroORM; close(): Promise<void> }> {
  const db = await createTestDatabase();
  const orm = await initAppOrm(db.url, { debug: false });
  return {
    geocoder: new OfflineGeocoder(orm),
    orm,
    async close() {
      await orm.close();
      await db.drop();
    },
  };
}
