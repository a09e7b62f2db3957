import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

/** How a user hears about leads assigned to its stores (stored as `immediate`, `daily_digest`, `off`). */
export enum NotificationFrequency {
  IMMEDIATE = 'immediate',
  DAILY_DIGEST = 'daily_digest',
  OFF = 'off',
}
registerEnumType(NotificationFrequency, {
  name: 'NotificationFrequency',
  description: 'How often a user is e-mailed about one kind of event.',
  valuesConfig: {
    IMMEDIATE: { description: 'One e-mail per event, sent as it happens.' },
    DAILY_DIGEST: { description: "One e-mail a day listing the events since the last one, at `NOTIFICATION_DIGEST_HOUR` in the user's `timeZone`." },
    OFF: { description: 'No e-mail.' },
  },
});

/** The language of a user's e-mails. */
export enum Locale {
  EN = 'en',
  FR = 'fr',
}
registerEnumType(Locale, {
  name: 'Locale',
  description: "The language of a user's e-mails and of the unsubscribe page.",
  valuesConfig: { EN: { description: 'English.' }, FR: { description: 'French.' } },
});

@ObjectType({ description: "The caller's e-mail notification settings (docs/notifications.md)." })
export class NotificationPreferences {
  @Field(() => String, { description: 'Where the e-mails go: the user\'s address.' })
  email!: string;

  @Field(() => Locale, { description: 'The language of the e-mails and of the unsubscribe page.' })
  locale!: Locale;

  @Field(() => NotificationFrequency, { description: 'Leads assigned to a store of the caller (by a create, an update or routing).' })
  leadAssigned!: NotificationFrequency;

  @Field(() => Boolean, { description: "True while `leadAssigned` is the role's default (store staff: `IMMEDIATE`; other roles: `OFF`)." })
  leadAssignedIsDefault!: boolean;

  @Field(() => NotificationFrequency, {
    description:
      'First-response times passed unanswered (docs/response-times.md), for company admins and territory managers: `OFF` until the user opts in (default), ' +
      '`IMMEDIATE` (at most 5 mails an hour, the rest gathered into one digest at the end of the hour) or `DAILY_DIGEST`.',
  })
  slaBreached!: NotificationFrequency;

  @Field(() => NotificationFrequency, {
    description:
      'Leads escalated at a store the user oversees (declined or not accepted in time with no hand-over left, docs/lead-loop.md): they go to the territory manager of the store, ' +
      'else the company admins, to reassign. `IMMEDIATE` (the default) or `OFF`.',
  })
  leadEscalated!: NotificationFrequency;

  @Field(() => String, { description: "The IANA time zone the daily digest's hour is read in: the user's own, else its store's, else `UTC`." })
  timeZone!: string;

  @Field(() => Boolean, { description: 'True while the user has not chosen a time zone (`timeZone` is its store\'s, or `UTC`).' })
  timeZoneIsDefault!: boolean;
}

@InputType({ description: 'What to change; fields left out keep their value.' })
export class NotificationPreferencesInput {
  @Field(() => Locale, { nullable: true, description: 'The language of the e-mails; unchanged when left out.' })
  locale?: Locale | null;

  @Field(() => NotificationFrequency, { nullable: true, description: 'E-mails about leads assigned to a store of the caller; unchanged when left out.' })
  leadAssigned?: NotificationFrequency | null;

  @Field(() => NotificationFrequency, { nullable: true, description: 'Breach mails: `IMMEDIATE`, `DAILY_DIGEST` or `OFF`; unchanged when left out.' })
  slaBreached?: NotificationFrequency | null;

  @Field(() => NotificationFrequency, { nullable: true, description: 'Escalation mails: `IMMEDIATE` or `OFF` (`DAILY_DIGEST` is refused: an escalation waits for someone to act); unchanged when left out.' })
  leadEscalated?: NotificationFrequency | null;

  @Field(() => String, {
    nullable: true,
    description: "An IANA time zone (`Europe/Paris`) for the daily digest's hour; null goes back to the default (the store's, else UTC); unchanged when left out.",
  })
  timeZone?: string | null;
}

/** Where a notification delivery stands (`notification_deliveries.status`). */
export enum NotificationDeliveryStatus {
  PENDING = 'pending',
  QUEUED = 'queued',
  DIGESTED = 'digested',
  SENT = 'sent',
  FAILED = 'failed',
  SKIPPED = 'skipped',
}
registerEnumType(NotificationDeliveryStatus, {
  name: 'NotificationDeliveryStatus',
  description: 'Where a notification mail stands.',
  valuesConfig: {
    PENDING: { description: 'To be sent (now, or again after a failure).' },
    QUEUED: { description: 'Waiting for a digest (the daily one, or the end of the hour past the breach mail cap).' },
    DIGESTED: { description: 'Gathered into a digest delivery (`digestId`).' },
    SENT: { description: 'Accepted by the SMTP server.' },
    FAILED: { description: 'Given up: refused for good (a 5xx) or still failing after the retry window.' },
    SKIPPED: { description: 'Nothing left to tell (recipient gone or unsubscribed, or no lead it may see).' },
  },
});

/** What one step of a delivery's log says happened (`notification_delivery_log.status`). */
export enum NotificationDeliveryStep {
  QUEUED = 'queued',
  SENT = 'sent',
  RETRIED = 'retried',
  FAILED = 'failed',
  BOUNCED = 'bounced',
  SKIPPED = 'skipped',
  DIGESTED = 'digested',
}
registerEnumType(NotificationDeliveryStep, {
  name: 'NotificationDeliveryStep',
  description: "A step of a notification mail's delivery log.",
  valuesConfig: {
    QUEUED: { description: 'Made (by the fan-out of an event, or as a digest).' },
    SENT: { description: 'Accepted by the SMTP server.' },
    RETRIED: { description: 'Failed; tried again later.' },
    FAILED: { description: 'Failed and given up.' },
    BOUNCED: { description: 'Refused for good by the SMTP server (a 5xx reply); given up.' },
    SKIPPED: { description: 'Not sent: nothing left to tell.' },
    DIGESTED: { description: 'Gathered into a digest.' },
  },
});

@ObjectType({ description: "One step of a notification mail's delivery log." })
export class NotificationDeliveryLogEntry {
  @Field(() => NotificationDeliveryStep, { description: 'What happened.' })
  status!: NotificationDeliveryStep;

  @Field(() => Int, { description: 'The attempt it was (0 before any).' })
  attempt!: number;

  @Field(() => Int, { nullable: true, description: "The SMTP server's reply code, when it gave one." })
  smtpCode!: number | null;

  @Field(() => String, { nullable: true, description: 'The error, first line only (no secret, no message body).' })
  error!: string | null;

  @Field(() => Date, { description: 'When (ISO 8601, UTC).' })
  at!: Date;
}

@ObjectType({ description: 'A notification mail to one user of the company, with its delivery log (docs/notifications.md "Delivery log").' })
export class NotificationDelivery {
  @Field(() => ID, { description: 'The delivery.' })
  id!: string;

  @Field(() => String, { description: '`lead_assigned`, `sla_breached`, `sla_reminder`, `lead_lost`, `lead_escalated` or `digest`.' })
  kind!: string;

  @Field(() => NotificationDeliveryStatus, { description: 'Where the mail is now.' })
  status!: NotificationDeliveryStatus;

  @Field(() => ID, { description: 'The recipient (a user of the company).' })
  recipientId!: string;

  @Field(() => String, { description: "The recipient's address." })
  recipientEmail!: string;

  @Field(() => ID, { nullable: true, description: 'The lead it is about; null for a digest.' })
  leadId!: string | null;

  @Field(() => ID, { nullable: true, description: 'The digest delivery it was gathered into, if any.' })
  digestId!: string | null;

  @Field(() => Int, { description: 'Sending attempts made.' })
  attempts!: number;

  @Field(() => String, { nullable: true, description: 'The last error, first line only.' })
  lastError!: string | null;

  @Field(() => Date, { description: 'When it was made (ISO 8601, UTC).' })
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When the SMTP server accepted it; null until then.' })
  sentAt!: Date | null;

  @Field(() => [NotificationDeliveryLogEntry], { description: 'Every step, in order.' })
  log!: NotificationDeliveryLogEntry[];
}

@InputType({ description: 'Which deliveries; every field given must match.' })
export class NotificationDeliveryWhere {
  @Field(() => [NotificationDeliveryStatus], { nullable: true, description: 'Any of these statuses.' })
  status?: NotificationDeliveryStatus[] | null;

  @Field(() => ID, { nullable: true, description: 'About this lead.' })
  leadId?: string | null;

  @Field(() => ID, { nullable: true, description: 'To this user.' })
  recipientId?: string | null;

  @Field(() => Date, { nullable: true, description: 'Made after this instant.' })
  createdAfter?: Date | null;
}
