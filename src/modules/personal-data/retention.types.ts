import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: "A company's retention periods (docs/personal-data.md \"Retention\"): what the retention job erases or deletes once it is that old." })
export class RetentionSettings {
  @Field(() => ID, { description: 'The company whose periods these are.' })
  companyId!: string;

  @Field(() => Int, {
    nullable: true,
    description: 'Leads with no update and no activity for this many months are erased (as `erasePersonalData` erases). Null (the default until a company admin sets a period): leads are kept.',
  })
  inactiveLeadMonths!: number | null;

  @Field(() => Int, { description: 'Webhook deliveries, notification mails and visitor confirmations older than this many days are deleted with their logs. Default 90.' })
  deliveryLogDays!: number;

  @Field(() => Boolean, { description: 'True while the company has not set its periods (the defaults apply).' })
  defaults!: boolean;
}

@InputType({ description: 'Retention periods to change; those left out keep their value.' })
export class RetentionSettingsInput {
  @Field(() => ID, { nullable: true, description: "The company (UUID): a company admin's own when left out; the platform operator names it." })
  companyId?: string | null;

  @Field(() => Int, { nullable: true, description: '1 to 1200 months; null keeps leads (no lead retention).' })
  inactiveLeadMonths?: number | null;

  @Field(() => Int, { nullable: true, description: '1 to 36500 days.' })
  deliveryLogDays?: number | null;
}

@ObjectType({ description: 'What a retention run would erase or delete now in a company, touching nothing (each list at most `first` ids, oldest first).' })
export class RetentionDryRun {
  @Field(() => ID, { description: 'The company it is about.' })
  companyId!: string;

  @Field(() => RetentionSettings, { description: 'The periods it applied.' })
  settings!: RetentionSettings;

  @Field(() => [ID], { description: 'Leads inactive for longer than `inactiveLeadMonths` (empty when leads are kept).' })
  leadIds!: string[];

  @Field(() => [ID], { description: 'Finished webhook deliveries to the company\'s endpoints older than `deliveryLogDays`.' })
  webhookDeliveryIds!: string[];

  @Field(() => [ID], { description: 'Notification mails about the company\'s leads (or to its users) older than `deliveryLogDays`, no longer waiting.' })
  notificationDeliveryIds!: string[];

  @Field(() => [ID], { description: "Confirmations mailed to the visitors of the company's contact forms older than `deliveryLogDays`." })
  visitorConfirmationIds!: string[];

  @Field(() => Boolean, { description: 'True when one of the lists was cut at `first`: more is due.' })
  truncated!: boolean;
}

/** What one retention run did in a company. */
export interface RetentionRun {
  companyId: string;
  /** Leads erased (by erasure jobs of selector `retention`). */
  leads: number;
  webhookDeliveries: number;
  notificationDeliveries: number;
  visitorConfirmations: number;
  /** A batch limit was reached: the rest goes at the next run. */
  more: boolean;
}
