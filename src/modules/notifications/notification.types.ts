import { Field, InputType, ObjectType, registerEnumType } from 'type-graphql';

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

  @Field(() => String, {
    nullable: true,
    description: "An IANA time zone (`Europe/Paris`) for the daily digest's hour; null goes back to the default (the store's, else UTC); unchanged when left out.",
  })
  timeZone?: string | null;
}
