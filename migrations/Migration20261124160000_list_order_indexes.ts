import { Migration } from '@mikro-orm/migrations';

/**
 * Lists read the scope's key and then the list order (`created_at desc, id`): each key's index ends in
 * that order, so a scoped page is an index range scan plus LIMIT instead of every matching row sorted.
 * They replace the indexes on the key alone (a composite index serves the key's lookups as well).
 * Lead activities: overall, for the operator (per lead: Migration20261124161000_lead_activity_owner_keys).
 */
const INDEXES: Array<{ table: string; key: string | null; replaces: string | null }> = [
  { table: 'lead_activities', key: null, replaces: null },
  { table: 'company_retailer_locations', key: 'company_id', replaces: 'company_retailer_locations_company_id_index' },
  { table: 'company_retailer_locations', key: 'company_retailer_id', replaces: 'company_retailer_locations_company_retailer_id_index' },
  { table: 'company_retailer_locations', key: 'retailer_location_id', replaces: 'company_retailer_locations_retailer_location_id_index' },
  { table: 'company_retailer_locations', key: 'territory_id', replaces: 'company_retailer_locations_territory_id_index' },
  { table: 'company_retailers', key: 'company_id', replaces: null },
  { table: 'company_retailers', key: 'retailer_id', replaces: 'company_retailers_retailer_id_index' },
  { table: 'company_retailers', key: 'territory_id', replaces: 'company_retailers_territory_id_index' },
];

const nameOf = (i: { table: string; key: string | null }) => `${i.table}_${i.key ? `${i.key}_` : ''}list_order_index`;

export class Migration20261124160000_list_order_indexes extends Migration {
  async up(): Promise<void> {
    for (const index of INDEXES) {
      const columns = [...(index.key ? [`"${index.key}"`] : []), '"created_at" desc', '"id"'].join(', ');
      this.addSql(`create index if not exists "${nameOf(index)}" on "${index.table}" (${columns});`);
      if (index.replaces) this.addSql(`drop index if exists "${index.replaces}";`);
    }
  }

  async down(): Promise<void> {
    for (const index of INDEXES) {
      if (index.replaces) this.addSql(`create index if not exists "${index.replaces}" on "${index.table}" ("${index.key}");`);
      this.addSql(`drop index if exists "${nameOf(index)}";`);
    }
  }
}
