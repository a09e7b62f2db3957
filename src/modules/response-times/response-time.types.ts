import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: "A company's first-response time (docs/response-times.md)." })
export class ResponseTimeSettings {
  @Field(() => ID, { description: 'The company these settings belong to.' })
  companyId!: string;

  @Field(() => Int, { nullable: true, description: 'Minutes a store has to answer a lead assigned to it; null: no timer. Setting or changing it starts the waiting leads\' timers from the change.' })
  firstResponseMinutes!: number | null;

  @Field(() => Boolean, { description: "Count only the store's opening hours, in its time zone (default true)." })
  businessHours!: boolean;

  @Field(() => Boolean, { description: "When the time passes unanswered, reassign the lead by the company's routing rules to a store it has not had." })
  reassign!: boolean;

  @Field(() => Int, {
    nullable: true,
    description:
      "Minutes a store has to accept or decline a lead offered to it (counted in its opening hours when `businessHours`), after which the offer lapses and the lead is handed to the next store (docs/lead-loop.md); null: offers do not lapse. Setting or changing it counts open offers' windows from the change.",
  })
  acceptMinutes!: number | null;

  @Field(() => Int, { description: 'How many times a lead is handed to another store (after a decline or a lapse) before it is escalated (default 3).' })
  maxHandovers!: number;
}

@InputType({ description: 'What to change; fields left out keep their value.' })
export class ResponseTimeSettingsInput {
  @Field(() => Int, { nullable: true, description: '1 to 525600 (a year); null turns the timer off.' })
  firstResponseMinutes?: number | null;

  @Field(() => Boolean, { nullable: true, description: "Count only the store's opening hours, in its time zone; unchanged when left out." })
  businessHours?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: "Reassign a lead not answered in time by the company's routing rules to a store it has not had; unchanged when left out." })
  reassign?: boolean | null;

  @Field(() => Int, { nullable: true, description: '1 to 525600 minutes a store has to answer an offer; null: offers do not lapse; unchanged when left out.' })
  acceptMinutes?: number | null;

  @Field(() => Int, { nullable: true, description: '0 to 100 hand-overs before a lead is escalated; unchanged when left out.' })
  maxHandovers?: number | null;
}
