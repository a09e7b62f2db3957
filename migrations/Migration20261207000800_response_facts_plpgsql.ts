import { Migration } from '@mikro-orm/migrations';
import { refreshFunction } from './Migration20261206150400_breach_counts';

/**
 * `leadnet_response_facts_refresh` in PL/pgSQL: the statement triggers of leads, timers and events call it
 * on every write, most often with no lead to refresh (an update that moved no fact column). As an SQL
 * function it planned its two statements again on every call and ran them on nothing, which fired the
 * facts' own statement triggers (rollups, store weeks) on nothing: about 6 ms a call, several calls a
 * write, whatever the write's size. In PL/pgSQL the session keeps its plans and no lead means no statement.
 */
export class Migration20261207000800_response_facts_plpgsql extends Migration {
  override async up(): Promise<void> {
    this.addSql(refreshFunction(true, 'plpgsql'));
  }

  override async down(): Promise<void> {
    this.addSql(refreshFunction(true, 'sql'));
  }
}
