import { Migration } from '@mikro-orm/migrations';

/** The advisory lock class of the count slots: `(COUNT_SLOT_LOCK, slot)`, two-int keys of no other lock. */
const COUNT_SLOT_LOCK = 727_010;
/** Slots a transaction may take alone; beyond that many writers at once, one shares (and waits). */
const SLOTS = 64;

/** The slot expression of every count trigger before this migration. */
const TXID_SLOT = '(txid_current() % 16)::smallint';
const OWN_SLOT = 'leadnet_count_slot()';

/** The trigger functions that write kept counts (each migration named in the doc comment below). */
const COUNT_FUNCTIONS = [
  'leadnet_lead_counts',
  'leadnet_lead_counts_change',
  'leadnet_lead_day_counts',
  'leadnet_lead_day_counts_change',
  'leadnet_lead_activity_counts',
  'leadnet_lead_activity_counts_owner',
  'leadnet_crl_counts',
  'leadnet_crl_counts_move',
  'leadnet_crl_key_counts',
  'leadnet_crl_key_counts_change',
];

/** Re-creates each of COUNT_FUNCTIONS (CREATE OR REPLACE, from its own definition) with `from` replaced by `to`. */
const replaceSlot = (from: string, to: string) => `do $$
  declare
    f text;
    def text;
  begin
    foreach f in array array[${COUNT_FUNCTIONS.map((f) => `'${f}'`).join(', ')}] loop
      def := pg_get_functiondef(f::regproc);
      if position('${from}' in def) = 0 then
        raise exception 'count trigger function % does not write its slot as expected', f;
      end if;
      execute replace(def, '${from}', '${to}');
    end loop;
  end $$;`;

/**
 * One lock order for the writes of leads. A lead create assigned to a store took the response
 * rollups, then the kept counts (its lead events fire first); an assignment of another lead to that store
 * took the counts, then the rollups (its counts are a row trigger, its events a statement trigger). Two
 * such transactions whose ids fell in the same one of the 16 count slots (`txid_current() % 16`) deadlocked
 * (40P01): 3 of 200 concurrent requests. The order of every transaction is now:
 *
 * 1. transaction-scoped advisory locks the service takes first (duplicate keys, sorted; routing turns);
 * 2. the lead rows it writes (`for update`);
 * 3. the response rollups, `lead_response_rollups` then `lead_response_store_weeks` (the triggers on
 *    `lead_response_facts` fire in that name order), each statement's rows in key order;
 * 4. the kept counts (`lead_counts`, `lead_day_counts`, `lead_activity_counts`, `crl_key_counts`,
 *    `company_retailer_location_counts`), written only in the transaction's own slot.
 *
 * A transaction's slot is taken at its first count write, `leadnet_count_slot()`: the lowest of 64 slots
 * whose advisory lock `(727010, slot)` it gets without waiting, kept for the rest of the transaction
 * (`leadnet.count_slot`, transaction-local). No other running transaction writes count rows of that slot,
 * so a count write never waits, and step 4 cannot close a cycle with steps 1 to 3, whatever order a
 * transaction's statements reach the counts and the rollups in. The 65th concurrent count writer shares a
 * slot and waits for its holder (the only wait on counts; a deadlock it may cause is retried by
 * `transactional()`, src/db/write.ts). A key's count is the sum of its slots (at most 64 rows; the
 * back-fills wrote slot 0). docs/scaling.md "Lock order of lead writes".
 */
export class Migration20261203140000_kept_count_slots extends Migration {
  async up(): Promise<void> {
    this.addSql(`create or replace function leadnet_count_slot() returns smallint
      language plpgsql volatile as $$
      declare
        held text := current_setting('leadnet.count_slot', true);
        s int;
      begin
        if held <> '' then return held::smallint; end if;
        for s in 0..${SLOTS - 1} loop
          if pg_try_advisory_xact_lock(${COUNT_SLOT_LOCK}, s) then
            perform set_config('leadnet.count_slot', s::text, true);
            return s;
          end if;
        end loop;
        s := txid_current() % ${SLOTS};
        perform pg_advisory_xact_lock(${COUNT_SLOT_LOCK}, s);
        perform set_config('leadnet.count_slot', s::text, true);
        return s;
      end $$;`);
    this.addSql(replaceSlot(TXID_SLOT, OWN_SLOT));
  }

  async down(): Promise<void> {
    this.addSql(replaceSlot(OWN_SLOT, TXID_SLOT));
    this.addSql(`drop function if exists leadnet_count_slot();`);
  }
}
