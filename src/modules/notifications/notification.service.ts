import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import { notFound, Validator } from '../../errors';
import { ESCALATION_FREQUENCIES, FREQUENCIES, type Topic } from './notification.defaults';
import { LOCALES } from './notification.mail';
import { nextDigestAt, zoneOf } from './notification.zone';
import { isTimeZone } from '../../geo/time-zone-name';
import { isUuid } from '../../search/list';
import {
  Locale,
  NotificationFrequency,
  NotificationPreferences,
  type NotificationDelivery,
  type NotificationDeliveryLogEntry,
  type NotificationDeliveryStatus,
  type NotificationDeliveryStep,
  type NotificationDeliveryWhere,
  type NotificationPreferencesInput,
} from './notification.types';
import { about, authorize, can } from '../../access/policy';
import { deliveryCompany, notificationPolicy } from './notification.policy';
import { audit, changes } from '../audit/audit.service';
import {
  companyDeliveries,
  delayQueuedDeliveries,
  userCompany,
  deliveryLogs,
  preferencesRow,
  setLeadAssigned,
  setLeadEscalated,
  setLocale,
  setSlaBreached,
  setTimeZone,
  turnOff,
  zoneRow,
} from './notification.repository';

/** Reads a user's settings (its role's default when it chose nothing). */
export async function preferencesOf(em: EntityManager, userId: string): Promise<NotificationPreferences | null> {
  const row = await preferencesRow(em, userId);
  if (!row) return null;
  return {
    email: row.email,
    locale: row.locale as Locale,
    leadAssigned: row.frequency as NotificationFrequency,
    leadAssignedIsDefault: row.is_default,
    slaBreached: row.sla as NotificationFrequency,
    leadEscalated: row.escalated as NotificationFrequency,
    timeZone: zoneOf(row),
    timeZoneIsDefault: row.own_zone === null,
  };
}

/** Turns a user's mails of `topic` off (the unsubscribe link); false when the user does not exist. */
export async function unsubscribe(em: EntityManager, userId: string, topic: Topic = 'lead_assigned'): Promise<boolean> {
  return turnOff(em, userId, topic);
}

/** E-mail notification settings: each network user reads and changes its own, and no one else's. */
export class NotificationService {
  constructor(private readonly ctx: Context) {}

  /**
   * The user whose settings are read or changed: the caller's own, or with `userId` a member of its team,
   * as the policy decides (`member`: a user of the caller's own company, else NOT_FOUND; `manage`: a
   * company admin's, else FORBIDDEN).
   */
  private async target(userId: string | null | undefined): Promise<string> {
    const self = this.ctx.caller!.userId;
    if (!userId || userId === self) return self;
    // An id that is no UUID names no user: NOT_FOUND like any other.
    const company = isUuid(userId) ? await userCompany(this.ctx.em, userId) : undefined;
    const member = about(notificationPolicy, { companyId: company ?? null });
    if (company === undefined || !can(this.ctx.caller, 'member', member)) throw notFound('User', userId);
    authorize(this.ctx.caller, 'manage', member);
    return userId;
  }

  async get(userId?: string | null): Promise<NotificationPreferences> {
    const id = await this.target(userId);
    const prefs = await preferencesOf(this.ctx.em, id);
    if (!prefs) throw notFound('User', id);
    return prefs;
  }

  async update(input: NotificationPreferencesInput, forUserId?: string | null): Promise<NotificationPreferences> {
    const userId = await this.target(forUserId);
    const v = new Validator();
    // GraphQL checks enum values; an explicit null is the one malformed value left to refuse.
    if (input.locale === null || (input.locale !== undefined && !(LOCALES as readonly string[]).includes(input.locale))) v.add('locale', 'invalid', 'must be EN or FR');
    if (input.leadAssigned === null || (input.leadAssigned !== undefined && !(FREQUENCIES as readonly string[]).includes(input.leadAssigned))) {
      v.add('lead_assigned', 'invalid', 'must be IMMEDIATE, DAILY_DIGEST or OFF');
    }
    if (input.slaBreached === null || (input.slaBreached !== undefined && !(FREQUENCIES as readonly string[]).includes(input.slaBreached))) {
      v.add('sla_breached', 'invalid', 'must be IMMEDIATE, DAILY_DIGEST or OFF');
    }
    if (input.leadEscalated === null || (input.leadEscalated !== undefined && !(ESCALATION_FREQUENCIES as readonly string[]).includes(input.leadEscalated))) {
      v.add('lead_escalated', 'invalid', 'must be IMMEDIATE or OFF');
    }
    const zone = input.timeZone;
    if (zone !== undefined && zone !== null && !(zone.length <= 64 && isTimeZone(zone))) v.add('time_zone', 'invalid', 'is not an IANA time zone');
    v.throwIfAny();
    await this.ctx.em.transactional(async (em) => {
      const before = await preferencesOf(em, userId);
      if (input.locale) await setLocale(em, userId, input.locale);
      if (zone !== undefined) {
        await setTimeZone(em, userId, zone);
        // Leads already waiting for a digest wait for the hour of the new zone.
        const at = nextDigestAt(new Date(), this.ctx.config.notifications.digestHour, zoneOf(await zoneRow(em, userId)));
        await delayQueuedDeliveries(em, userId, at);
      }
      if (input.leadAssigned) await setLeadAssigned(em, userId, input.leadAssigned);
      if (input.slaBreached) await setSlaBreached(em, userId, input.slaBreached);
      if (input.leadEscalated) await setLeadEscalated(em, userId, input.leadEscalated);
      const after = await preferencesOf(em, userId);
      if (before && after) {
        // The time zone by its field's name only: where a person is is theirs.
        const changed = changes(before, after, ['locale', 'leadAssigned', 'slaBreached', 'leadEscalated']);
        const fields = [...Object.keys(changed), ...(before.timeZone !== after.timeZone ? ['timeZone'] : [])];
        const target = { type: 'user', id: userId, companyId: (await userCompany(em, userId)) ?? null };
        if (fields.length) await audit.record(em, this.ctx.caller, 'notification_preferences.changed', target, { ...changed, fields });
      }
    });
    return this.get(userId);
  }
}

/** The most deliveries one `notificationDeliveries` page lists. */
export const MAX_DELIVERIES = 200;

/**
 * The delivery log of the mails to the caller's company's users (a company admin's: the policy decides),
 * newest first, each with its steps: two statements whatever the page's size.
 */
export async function notificationDeliveries(ctx: Context, where: NotificationDeliveryWhere | null | undefined, first: number): Promise<NotificationDelivery[]> {
  authorize(ctx.caller, 'deliveries', notificationPolicy);
  const v = new Validator();
  if (!Number.isInteger(first) || first < 1 || first > MAX_DELIVERIES) v.add('first', 'invalid', `must be 1 to ${MAX_DELIVERIES}`);
  v.throwIfAny();
  const rows = await companyDeliveries(ctx.em, deliveryCompany(ctx.caller!), {
    status: where?.status ?? null,
    leadId: where?.leadId ?? null,
    userId: where?.recipientId ?? null,
    createdAfter: where?.createdAfter ?? null,
  }, first);
  const logs = await deliveryLogs(ctx.em, rows.map((r) => r.id));
  const byDelivery = new Map<string, NotificationDeliveryLogEntry[]>();
  for (const l of logs) {
    const list = byDelivery.get(l.delivery_id) ?? [];
    list.push({ status: l.status as NotificationDeliveryStep, attempt: l.attempt, smtpCode: l.smtp_code, error: l.error, at: new Date(l.at) });
    byDelivery.set(l.delivery_id, list);
  }
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    status: r.status as NotificationDeliveryStatus,
    recipientId: r.user_id,
    recipientEmail: r.email,
    leadId: r.lead_id,
    digestId: r.digest_id,
    attempts: r.attempts,
    lastError: r.last_error,
    createdAt: new Date(r.created_at),
    sentAt: r.sent_at ? new Date(r.sent_at) : null,
    log: byDelivery.get(r.id) ?? [],
  }));
}
