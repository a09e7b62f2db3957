import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import { query } from '../../db/sql';
import { notFound, Validator } from '../../errors';
import { FREQUENCIES, FREQUENCY_SQL, SLA_FREQUENCY_SQL, type Topic } from './notification.defaults';
import { LOCALES } from './notification.mail';
import { nextDigestAt, ZONE_COLUMNS, zoneOf } from './notification.zone';
import { isTimeZone } from '../../geo/time-zone-name';
import { Locale, NotificationFrequency, NotificationPreferences, type NotificationPreferencesInput } from './notification.types';

/** Reads a user's settings (its role's default when it chose nothing). */
export async function preferencesOf(em: EntityManager, userId: string): Promise<NotificationPreferences | null> {
  const [row] = await query<any>(
    em,
    `select u.email, u.locale, ${FREQUENCY_SQL} as frequency, p.lead_assigned is null as is_default, ${SLA_FREQUENCY_SQL} as sla, ${ZONE_COLUMNS}
       from users u left join notification_preferences p on p.user_id = u.id where u.id = ?`,
    [userId],
  );
  if (!row) return null;
  return {
    email: row.email,
    locale: row.locale as Locale,
    leadAssigned: row.frequency as NotificationFrequency,
    leadAssignedIsDefault: row.is_default,
    slaBreached: row.sla as NotificationFrequency,
    timeZone: zoneOf(row),
    timeZoneIsDefault: row.own_zone === null,
  };
}

/** Turns a user's mails of `topic` off (the unsubscribe link); false when the user does not exist. */
export async function unsubscribe(em: EntityManager, userId: string, topic: Topic = 'lead_assigned'): Promise<boolean> {
  const column = topic === 'sla_breached' ? 'sla_breached' : 'lead_assigned';
  const rows = await query(
    em,
    `insert into notification_preferences (user_id, ${column}) select id, 'off' from users where id = ?
     on conflict (user_id) do update set ${column} = 'off', updated_at = now() returning user_id`,
    [userId],
  );
  return rows.length > 0;
}

/** E-mail notification settings: each network user reads and changes its own, and no one else's. */
export class NotificationService {
  constructor(private readonly ctx: Context) {}

  async get(): Promise<NotificationPreferences> {
    const prefs = await preferencesOf(this.ctx.em, this.ctx.caller!.userId);
    if (!prefs) throw notFound('User', this.ctx.caller!.userId);
    return prefs;
  }

  async update(input: NotificationPreferencesInput): Promise<NotificationPreferences> {
    const v = new Validator();
    // GraphQL checks enum values; an explicit null is the one malformed value left to refuse.
    if (input.locale === null || (input.locale !== undefined && !(LOCALES as readonly string[]).includes(input.locale))) v.add('locale', 'invalid', 'must be EN or FR');
    if (input.leadAssigned === null || (input.leadAssigned !== undefined && !(FREQUENCIES as readonly string[]).includes(input.leadAssigned))) {
      v.add('lead_assigned', 'invalid', 'must be IMMEDIATE, DAILY_DIGEST or OFF');
    }
    if (input.slaBreached === null || (input.slaBreached !== undefined && !['immediate', 'off'].includes(input.slaBreached))) {
      v.add('sla_breached', 'invalid', 'must be IMMEDIATE or OFF');
    }
    const zone = input.timeZone;
    if (zone !== undefined && zone !== null && !(zone.length <= 64 && isTimeZone(zone))) v.add('time_zone', 'invalid', 'is not an IANA time zone');
    v.throwIfAny();
    const userId = this.ctx.caller!.userId;
    await this.ctx.em.transactional(async (em) => {
      if (input.locale) await query(em, `update users set locale = ?, updated_at = now() where id = ?`, [input.locale, userId]);
      if (zone !== undefined) {
        await query(em, `update users set time_zone = ?, updated_at = now() where id = ?`, [zone, userId]);
        // Leads already waiting for a digest wait for the hour of the new zone.
        const [row] = await query<any>(em, `select ${ZONE_COLUMNS} from users u where u.id = ?`, [userId]);
        const at = nextDigestAt(new Date(), this.ctx.config.notifications.digestHour, zoneOf(row));
        await query(em, `update notification_deliveries set next_attempt_at = ? where user_id = ? and status = 'queued'`, [at, userId]);
      }
      if (input.leadAssigned) {
        await query(
          em,
          `insert into notification_preferences (user_id, lead_assigned) values (?, ?)
           on conflict (user_id) do update set lead_assigned = excluded.lead_assigned, updated_at = now()`,
          [userId, input.leadAssigned],
        );
      }
      if (input.slaBreached) {
        await query(
          em,
          `insert into notification_preferences (user_id, sla_breached) values (?, ?)
           on conflict (user_id) do update set sla_breached = excluded.sla_breached, updated_at = now()`,
          [userId, input.slaBreached],
        );
      }
    });
    return this.get();
  }
}
