import { createTransport } from 'nodemailer';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import type { Caller } from '../../auth/caller';
import { logger } from '../../logger';
import { compileScope } from '../../search/where';
import type { Where } from '../../search/types';
import { leadSearch } from '../lead/lead.search';
import { leadScope } from '../lead/lead.policy';
import { withdrawnLeads } from '../lead/lead-consent.repository';
import { crlScope } from '../company-retailer-location/company-retailer-location.policy';
import type { Role } from '../user/role';
import { digestMail, leadAssignedMail, leadEscalatedMail, slaBreachedMail, slaReminderMail, oneLine, productsOf, type About, type LeadSummary, type Locale, type Mail } from './notification.mail';
import { unsubscribeToken } from './notification.token';
import { insertLostDeliveries } from './offer-page.repository';
import { linkOfferPages, lostLeadMail } from './offer-mail';
import { withXactLock } from '../../db/leader';
import { OutboxRunner, type ClaimRequest, type OutboxItem, type OutboxOutcome, type OutboxQueue, type Verdict } from '../../outbox/runner';
import { nextDigestAt, zoneOf } from './notification.zone';
import { SLA_MAILS_PER_HOUR, type Topic } from './notification.defaults';
import { countMail } from '../../observability/mail-counts';
import {
  assignmentRecipients,
  mailsInWindow,
  breachRecipients,
  breachRow,
  claimDeliveries,
  escalationRecipients,
  deleteOutboxEvents,
  digestLeads,
  gatherDigests,
  insertDeliveries,
  lockDueReminders,
  markReminded,
  logDelivery,
  leadIdsInScope,
  leadSummaryRows,
  lockEventsToFanOut,
  markFailed,
  markFinished,
  recipientRow,
  type ClaimedDelivery,
  type RecipientRow,
} from './notification.repository';

export { nextDigestAt };

/** Advisory lock of the fan-out and digest steps: one process at a time. */
export const NOTIFICATION_LOCK = 7_312_030;
/** Held for as long as a process is the one running the notification worker (src/db/leader.ts). */
export const NOTIFICATION_WORKER_LEADER = 7_312_031;
/** Advisory lock of claiming deliveries. */
export const NOTIFICATION_CLAIM_LOCK = 7_312_032;

/** Events fanned out per statement batch. */
const FANOUT_BATCH = 100;
/** Mails in flight per organisation (lane): a burst or a stalled conversation only holds its own. */
export const LANE_CONCURRENCY = 2;
/** Mails in flight in all, whatever the number of organisations. */
const MAX_IN_FLIGHT = 16;
/** A claimed delivery is claimed again only after its SMTP timeout plus this, unless its outcome is recorded. */
const LEASE_MARGIN_MS = 60_000;
/** An assignment older than this when first fanned out (an outage, SMTP configured later) is not mailed. */
const MAX_EVENT_AGE_MS = 24 * 3_600_000;
/** Users one event may notify at most (the candidates of one store). */
const MAX_RECIPIENTS = 200;
/** Leads one digest lists at most (the rest are counted in its subject and the link leads to them). */
const MAX_DIGEST_LEADS = 50;

export interface NotificationWorkerOptions {
  /** The time the worker acts at (tests move it); leases and due times in the database use it too. */
  clock?: () => Date;
}

/** The Message-ID of a delivery's mail: the same for every attempt, so a resend can be recognised. */
export function messageId(deliveryId: string, publicUrl: string): string {
  let host = 'leadnet.invalid';
  try {
    host = new URL(publicUrl).hostname || host;
  } catch {
    // the default
  }
  return `<notification-${deliveryId}@${host}>`;
}

/** `attempt` 1, 2, 3...: 30 s doubling up to one hour, with up to 20% jitter. */
export function retryDelayMs(attempt: number): number {
  const base = Math.min(3_600_000, 30_000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 + Math.random() * 0.2));
}

type Claimed = ClaimedDelivery & OutboxItem;

interface Outcome extends OutboxOutcome {
  /** Not worth retrying: an SMTP 5xx refusal, or nothing left to tell. */
  permanent: boolean;
  /** Nothing left to tell (recipient gone or unsubscribed, no lead it may see): not a failure. */
  skipped?: boolean;
  /** The SMTP server's reply code, when it gave one. */
  smtpCode?: number | null;
}

/**
 * An SMTP error as it may be logged and stored: its first line, at most 300 characters, with any
 * credentials of a URL in it masked (the message body never is in it).
 */
export function safeError(message: string): string {
  return message.split(/\r?\n/)[0].replace(/\/\/[^\s/@]+@/g, '//***@').slice(0, 300);
}

interface Recipient {
  id: string;
  email: string;
  locale: Locale;
  caller: Caller;
  frequency: string;
  /** The zone its digest hour is read in. */
  zone: string;
}

function recipientOf(row: RecipientRow): Recipient {
  return {
    id: row.id,
    email: row.email,
    locale: row.locale === 'fr' ? 'fr' : 'en',
    frequency: row.frequency,
    zone: zoneOf(row),
    caller: {
      userId: row.id,
      role: row.role as Role,
      companyId: row.company_id,
      retailerId: row.retailer_id,
      territoryId: row.territory_id,
      companyRetailerIds: row.cr_ids ?? [],
      companyRetailerLocationIds: row.crl_ids ?? [],
      retailerLocationIds: row.rl_ids ?? [],
    },
  };
}

/**
 * A recipient may be told of a lead while the lead is assigned to a store in the recipient's own scope
 * (PRODUCT.md 3: the CRLs the user sees), `storeId` when given: the same rule that makes the lead visible
 * to the user through its assignee, so a mail never shows a lead to someone its list would not.
 */
function assignedToSeenStore(caller: Caller, leadIds: string[], storeId?: string): Where {
  return { _and: [{ id: leadIds }, ...(storeId ? [{ assignee_id: [storeId] }] : []), crlScope(caller, 'assignee_')] };
}

/** Of `leadIds`, those assigned to a store in the caller's scope (`storeId` when given), or with `anyWay` those the caller sees at all. */
async function visibleLeads(em: EntityManager, caller: Caller, leadIds: string[], storeId?: string, anyWay = false): Promise<Set<string>> {
  if (!leadIds.length) return new Set();
  const cond = compileScope(leadSearch, anyWay ? { _and: [{ id: leadIds }, leadScope(caller)] } : assignedToSeenStore(caller, leadIds, storeId));
  return new Set(await leadIdsInScope(em, cond));
}

/**
 * Sends the e-mail notifications of lead assignments from the lead events outbox (`notification_events`,
 * filled by trigger from `lead_events`). Fan-out gives each event one delivery per recipient (unique per
 * event and user): the users who see the store the lead was assigned to and did not turn notifications
 * off; a daily-digest user's deliveries wait and are gathered into one digest delivery at the digest
 * hour of the user's time zone. Delivery is the outbox runner's (src/outbox/runner.ts, docs/outbox.md)
 * with one lane per organisation, `LANE_CONCURRENCY` mails at a time each and `MAX_IN_FLIGHT` in all: a
 * slow or hanging mail conversation only delays its own organisation. An SMTP 5xx refusal is final; any
 * other failure is retried with backoff for `retryHours`. Each mail's Message-ID is its delivery's, so
 * the rare resend after a crash (docs/outbox.md) carries the same one.
 */
export class NotificationWorker implements OutboxQueue<Claimed, Outcome> {
  readonly name = 'notification';
  readonly claimLock = NOTIFICATION_CLAIM_LOCK;
  readonly laneConcurrency = LANE_CONCURRENCY;
  readonly maxInFlight = MAX_IN_FLIGHT;
  readonly claimLimit = MAX_IN_FLIGHT;
  readonly leaseMs: number;
  readonly retryHours: number;
  private readonly transport;
  private readonly clock: () => Date;
  private readonly runner: OutboxRunner<Claimed, Outcome>;

  constructor(
    private readonly orm: MikroORM,
    private readonly config: Config,
    options: NotificationWorkerOptions = {},
  ) {
    const n = config.notifications;
    if (!n.smtpUrl) throw new Error('the notification worker needs SMTP_URL');
    // One SMTP conversation per mail (no pool): a stalled conversation holds no other organisation's mail.
    this.transport = createTransport({
      url: n.smtpUrl,
      connectionTimeout: n.smtpTimeoutMs,
      greetingTimeout: n.smtpTimeoutMs,
      socketTimeout: n.smtpTimeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    } as any);
    this.clock = options.clock ?? (() => new Date());
    // A conversation has three timeouts (connection, greeting, socket) to run out before it fails.
    this.leaseMs = n.smtpTimeoutMs * 3 + LEASE_MARGIN_MS;
    this.retryHours = n.retryHours;
    this.runner = new OutboxRunner(orm, this, { pollMs: n.pollMs, clock: this.clock });
  }

  start(): void {
    this.runner.start();
  }

  /** Stops taking work and waits for the mails in flight (each ends by its SMTP timeout). */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  /** One round that waits for the mails it started (tests, shutdown). */
  async tick(): Promise<{ locked: boolean; fannedOut: number; sent: number }> {
    const r = await this.runner.tick();
    return { locked: r.locked, fannedOut: r.prepared, sent: r.started };
  }

  /** Rounds until nothing is left to fan out or due now. */
  drain(maxRounds = 50): Promise<void> {
    return this.runner.drain(maxRounds);
  }

  /** Waits for the mails in flight (tests). */
  settle(): Promise<void> {
    return this.runner.settle();
  }

  backoffMs(attempt: number): number {
    return retryDelayMs(attempt);
  }

  /** Fan-out, then digests, under the worker's lock (the runner's prepare step); null when another process holds it. */
  async prepare(): Promise<number | null> {
    let total = 0;
    for (;;) {
      const batch = await withXactLock(this.orm, NOTIFICATION_LOCK, (em) => this.fanOut(em));
      if (batch === null) return total || null;
      total += batch.events;
      if (!batch.more) break;
    }
    await withXactLock(this.orm, NOTIFICATION_LOCK, (em) => this.remind(em));
    await withXactLock(this.orm, NOTIFICATION_LOCK, (em) => this.gatherDigests(em));
    return total;
  }

  /**
   * Reminders before a breach (docs/notifications.md "Reminders"): once per timer, to the store's own
   * staff who hear of its leads one by one (`immediate`), when the timer passes its `remind_at`.
   */
  private async remind(em: EntityManager): Promise<number> {
    const now = this.clock();
    const due = await lockDueReminders(em, now, FANOUT_BATCH);
    for (const r of due) {
      const candidates = (await assignmentRecipients(em, r.store_id, MAX_RECIPIENTS)).map(recipientOf).filter((c) => c.frequency === 'immediate');
      const wanted: Recipient[] = [];
      for (const c of candidates) if ((await visibleLeads(em, c.caller, [r.lead_id], r.store_id)).size) wanted.push(c);
      if (!wanted.length) continue;
      const about = { kind: 'reminder', store_id: r.store_id, store_name: r.store_name, due_at: new Date(r.due_at).toISOString() };
      await insertDeliveries(
        em,
        { kind: 'sla_reminder', eventId: null, leadId: r.lead_id, lane: r.lane, about },
        { ids: wanted.map((c) => c.id), digest: wanted.map(() => false), dueAt: wanted.map(() => now.toISOString()) },
      );
    }
    await markReminded(em, due.map((r) => r.lead_id));
    return due.length;
  }

  private async fanOut(em: EntityManager): Promise<{ events: number; more: boolean }> {
    const now = this.clock();
    const events = await lockEventsToFanOut(em, FANOUT_BATCH);
    if (!events.length) return { events: 0, more: false };
    for (const e of events) {
      if (now.getTime() - new Date(e.occurred_at).getTime() > MAX_EVENT_AGE_MS) continue;
      const sla = e.type === 'lead.sla_breached';
      // An escalation (a decline or a lapse that left no hand-over: the only ones the outbox trigger queues) goes to who reassigns it.
      const escalated = e.type === 'lead.declined' || e.type === 'lead.offer_expired';
      const candidates = (
        sla
          ? await breachRecipients(em, e.store_id, MAX_RECIPIENTS)
          : escalated
            ? await escalationRecipients(em, e.store_id, MAX_RECIPIENTS)
            : await assignmentRecipients(em, e.store_id, MAX_RECIPIENTS)
      ).map(recipientOf);
      const wanted: Recipient[] = [];
      // Nobody is mailed about their own action (the user whose write made the event: an assignment to its own store, a decline).
      for (const r of candidates) if (r.id !== e.actor_id && (await visibleLeads(em, r.caller, [e.lead_id], e.store_id ?? undefined, sla || escalated)).size) wanted.push(r);
      if (!wanted.length) continue;
      // Escalations are actionable: sent at once (the setting is IMMEDIATE or OFF), within the hourly cap.
      const digest = wanted.map((r) => !escalated && r.frequency === 'daily_digest');
      // A digest reader's delivery waits for the digest hour by its own wall clock.
      const dueAt = wanted.map((r, i) => (digest[i] ? nextDigestAt(now, this.config.notifications.digestHour, r.zone) : now).toISOString());
      const about = { ...e.about };
      const kind = sla ? 'sla_breached' : escalated ? 'lead_escalated' : 'lead_assigned';
      if (kind !== 'lead_assigned') {
        // The cap: past SLA_MAILS_PER_HOUR immediate breach (or escalation) mails in this clock hour, a
        // recipient's next ones wait for the hour's end and are gathered into one digest of that kind then.
        const window = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
        about.window = window.toISOString();
        const sent = await mailsInWindow(em, kind, wanted.map((r) => r.id), about.window as string);
        wanted.forEach((r, i) => {
          if (digest[i]) return;
          const n = sent.get(r.id) ?? 0;
          if (n >= SLA_MAILS_PER_HOUR) {
            digest[i] = true;
            dueAt[i] = new Date(window.getTime() + 3_600_000).toISOString();
          } else sent.set(r.id, n + 1);
        });
      }
      await insertDeliveries(
        em,
        { kind, eventId: e.event_id, leadId: e.lead_id, lane: e.lane, about },
        { ids: wanted.map((r) => r.id), digest, dueAt },
      );
    }
    // The stores the batch's assignments took leads from are told (after the assignments' own deliveries: a user who sees the new store too lost nothing).
    const moved = events.filter((e) => e.type === 'lead.assigned' && now.getTime() - new Date(e.occurred_at).getTime() <= MAX_EVENT_AGE_MS);
    await insertLostDeliveries(em, moved.map((e) => ({ eventId: e.event_id, lane: e.lane, actorId: e.actor_id ?? null })), now);
    await deleteOutboxEvents(em, events.map((e) => e.event_id));
    return { events: events.length, more: events.length === FANOUT_BATCH };
  }

  /** At the digest hour, each user's waiting deliveries become one digest delivery (in the user's organisation's lane). */
  private async gatherDigests(em: EntityManager): Promise<number> {
    return gatherDigests(em, this.clock());
  }

  /** Every organisation's due deliveries up to its free slots, longest due first, leased until three SMTP timeouts and a margin have passed. */
  claim(em: EntityManager, request: ClaimRequest): Promise<Claimed[]> {
    return claimDeliveries(em, request);
  }

  /** Sent, skipped (nothing left to tell), retried after its backoff, or failed (a 5xx, or `retryHours` passed). */
  async record(row: Claimed, outcome: Outcome, { attempt, giveUp, retryAt }: Verdict): Promise<void> {
    const em = (this.orm.em as EntityManager).fork();
    const smtpCode = outcome.smtpCode ?? null;
    if (outcome.ok || outcome.skipped) {
      const status = outcome.ok ? 'sent' : 'skipped';
      await markFinished(em, row.id, { status, attempt, sentAt: outcome.ok ? this.clock() : null, error: outcome.error });
      await logDelivery(em, row.id, { status, attempt, smtpCode, error: outcome.ok ? null : outcome.error });
      countMail(status);
      return;
    }
    const error = outcome.error ? safeError(outcome.error) : null;
    // Given up: `bounced` when the server refused it for good (a 5xx), else `failed`; otherwise tried again later.
    const status = !giveUp ? 'retried' : smtpCode !== null && smtpCode >= 500 ? 'bounced' : 'failed';
    await markFailed(em, row.id, { status: giveUp ? 'failed' : 'pending', attempt, retryAt, error });
    await logDelivery(em, row.id, { status, attempt, smtpCode, error });
    countMail(status);
    // Recipient ids only: no address, no secret, no message body.
    logger.warn({ delivery: row.id, kind: row.kind, lane: row.lane, user: row.user_id, attempt, smtpCode, status, retryAt, error }, `notification mail ${status}`);
  }

  /** Renders and sends one delivery; what its recipient may no longer see, or turned off, is skipped. */
  async deliver(row: Claimed): Promise<Outcome> {
    const em = (this.orm.em as EntityManager).fork();
    // A digest is of one topic: breaches, escalations or assignments.
    const sla = row.kind === 'sla_breached' || (row.kind === 'digest' && row.about?.topic === 'sla_breached');
    const escalated = row.kind === 'lead_escalated' || (row.kind === 'digest' && row.about?.topic === 'lead_escalated');
    const topic = sla ? 'sla_breached' : escalated ? 'lead_escalated' : 'lead_assigned';
    const user = await recipientRow(em, row.user_id, topic);
    if (!user) return { ok: false, permanent: true, skipped: true, error: 'recipient deleted' };
    const recipient = recipientOf(user);
    if (recipient.frequency === 'off') return { ok: false, permanent: true, skipped: true, error: 'recipient unsubscribed' };
    // docs/personal-data.md "Consent": nothing is sent about a person who withdrew their contact consent, whenever it was queued.
    if (row.kind === 'lead_lost') {
      if (row.lead_id && (await withdrawnLeads(em, [row.lead_id])).size) return { ok: false, permanent: true, skipped: true, error: 'consent withdrawn' };
      const url = this.unsubscribeUrl(recipient.id, 'lead_assigned');
      const lost = await lostLeadMail(em, row.event_id, recipient.locale, url);
      return lost ? this.send(row, recipient.email, lost, url) : { ok: false, permanent: true, skipped: true, error: 'event gone' };
    }
    // Each lead with what its delivery is about, as it was (its own store and time, even if the lead moved on since).
    const items = row.kind === 'digest' ? await digestLeads(em, row.id, MAX_DIGEST_LEADS) : [{ lead_id: row.lead_id!, about: row.about }];
    const about = new Map(items.map((i) => [i.lead_id, (i.about ?? null) as About | null]));
    const withdrawn = await withdrawnLeads(em, items.map((i) => i.lead_id));
    const leadIds = items.map((i) => i.lead_id).filter((id) => !withdrawn.has(id));
    if (!leadIds.length) return { ok: false, permanent: true, skipped: true, error: 'consent withdrawn' };
    const visible = await visibleLeads(em, recipient.caller, leadIds, undefined, sla || escalated);
    const leads = ((await this.summaries(em, leadIds.filter((id) => visible.has(id)))).filter(Boolean) as LeadSummary[]).map((l) => ({ ...l, about: about.get(l.id) ?? null }));
    if (!leads.length) return { ok: false, permanent: true, skipped: true, error: 'no lead the recipient may see' };
    await linkOfferPages(em, this.config, row, recipient.id, leads, this.clock());
    const unsubscribeUrl = this.unsubscribeUrl(recipient.id, topic);
    const mail: Mail =
      row.kind === 'digest'
        ? digestMail(recipient.locale, leads, unsubscribeUrl, recipient.zone, topic)
        : escalated
        ? leadEscalatedMail(recipient.locale, leads[0], unsubscribeUrl, recipient.zone)
        : sla
          ? await this.breachMail(em, row, recipient.locale, leads[0], unsubscribeUrl)
          : row.kind === 'sla_reminder'
            ? slaReminderMail(recipient.locale, leads[0], unsubscribeUrl, recipient.zone)
            : leadAssignedMail(recipient.locale, leads[0], unsubscribeUrl, recipient.zone);
    return this.send(row, recipient.email, mail, unsubscribeUrl);
  }

  private unsubscribeUrl(userId: string, topic: Topic): string {
    const n = this.config.notifications;
    const token = unsubscribeToken(n.secret!, userId, this.clock(), topic);
    return `${n.publicUrl}/notifications/unsubscribe?token=${encodeURIComponent(token)}`;
  }

  /** Sends one delivery's mail: the same Message-ID on every attempt. */
  private async send(row: Claimed, to: string, mail: Mail, unsubscribeUrl: string): Promise<Outcome> {
    const n = this.config.notifications;
    try {
      await this.transport.sendMail({
        from: n.from,
        messageId: messageId(row.id, n.publicUrl),
        to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: {
          // RFC 8058: mail clients offer one-click unsubscribe by POSTing `List-Unsubscribe=One-Click` here.
          'List-Unsubscribe': `<${unsubscribeUrl}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          'Auto-Submitted': 'auto-generated',
          'X-Leadnet-Notification-Id': row.id,
          ...(row.event_id ? { 'X-Leadnet-Event-Id': row.event_id } : {}),
        },
      });
      return { ok: true, permanent: false, error: null };
    } catch (err) {
      const e = err as Error & { responseCode?: number; code?: string };
      const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
      return { ok: false, permanent, smtpCode: typeof e.responseCode === 'number' ? e.responseCode : null, error: safeError(`${e.code ?? 'error'}: ${e.message}`) };
    }
  }

  private async breachMail(em: EntityManager, row: Claimed, locale: Locale, lead: LeadSummary, unsubscribeUrl: string): Promise<Mail> {
    const e = await breachRow(em, row.event_id);
    return slaBreachedMail(locale, lead, e?.store_name ?? null, new Date(e?.due_at ?? Date.now()), unsubscribeUrl, row.about as About | null);
  }

  /** What a mail says of each lead, in the order asked. */
  private async summaries(em: EntityManager, leadIds: string[]): Promise<Array<LeadSummary | undefined>> {
    if (!leadIds.length) return [];
    const rows = await leadSummaryRows(em, leadIds);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const leadUrl = this.config.notifications.leadUrl;
    return leadIds.map((id) => {
      const r = byId.get(id);
      if (!r) return undefined;
      return {
        id,
        name: oneLine(r.name) || null,
        emails: (r.emails ?? []).map((x: string) => oneLine(x)),
        phones: (r.phones ?? []).map((x: string) => oneLine(x)),
        address: oneLine(r.address, 400) || null,
        products: productsOf(r.products),
        storeName: r.store_name ? oneLine(r.store_name) : null,
        url: leadUrl.replace('{id}', encodeURIComponent(id)),
      };
    });
  }
}
