import { Migration } from '@mikro-orm/migrations';
import { formatPhone } from '../src/modules/contact/phone';

/**
 * A phone number's international format, stored on write (PhoneNumber's hooks) instead of re-parsed by
 * libphonenumber on every read; existing numbers are formatted here, in batches.
 */
export class Migration20261123110100_phone_formatted extends Migration {
  async up(): Promise<void> {
    await this.execute(`alter table "phone_numbers" add column "formatted_international" varchar(255) null;`);
    for (;;) {
      const rows = await this.execute(
        `select id, phone_number, country_code from "phone_numbers" where "formatted_international" is null order by id limit 5000`,
      );
      if (!rows.length) break;
      await this.execute(
        `update "phone_numbers" p set "formatted_international" = v.formatted
           from unnest(?::uuid[], ?::text[]) as v(id, formatted) where p.id = v.id`,
        [
          `{${rows.map((r: any) => r.id).join(',')}}`,
          `{${rows.map((r: any) => `"${formatPhone(r.phone_number, r.country_code).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`,
        ],
      );
    }
  }

  async down(): Promise<void> {
    await this.execute(`alter table "phone_numbers" drop column if exists "formatted_international";`);
  }
}
