import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

@InputType({ description: 'Who a personal-data request is about (docs/personal-data.md): exactly one of `email`, `phone` or `leadId`, within one company.' })
export class PersonSelector {
  @Field(() => ID, { nullable: true, description: "The company (UUID) whose data it is: a company admin's own when left out (another company's is NOT_FOUND); the platform operator names it (or a `leadId`)." })
  companyId?: string | null;

  @Field(() => String, { nullable: true, description: 'An e-mail address, matched as the duplicate rules match it (trimmed, lower-cased).' })
  email?: string | null;

  @Field(() => String, { nullable: true, description: 'A phone number, matched in E.164 as the duplicate rules match it (`+33 6 12 34 56 78`; without `+`, read in `phoneCountry`).' })
  phone?: string | null;

  @Field(() => String, { nullable: true, description: 'The ISO 3166 country a `phone` without `+` is read in (default `US`).' })
  phoneCountry?: string | null;

  @Field(() => ID, { nullable: true, description: "A lead (UUID) of the person: it and the company's leads sharing an e-mail or phone with it." })
  leadId?: string | null;
}

export enum ErasureStatus {
  RUNNING = 'running',
  DONE = 'done',
}
registerEnumType(ErasureStatus, {
  name: 'ErasureStatus',
  description: 'Where an erasure job is.',
  valuesConfig: {
    RUNNING: { description: 'Steps are left: it resumes (the erasure worker, `leadnet personal-data resume-erasures`).' },
    DONE: { description: 'Every step ran: the person is erased and the erasure is in the ledger.' },
  },
});

@ObjectType({ description: "An erasure of a person's data in a company (docs/personal-data.md \"Erasure\"): a job of idempotent steps that resumes where it stopped." })
export class ErasureJob {
  @Field(() => ID, { description: "The job's id (the ledger's and the audit entry's)." })
  id!: string;

  @Field(() => ID, { description: 'The company whose data it erases.' })
  companyId!: string;

  @Field(() => ErasureStatus, { description: '`DONE` once every step ran.' })
  status!: ErasureStatus;

  @Field(() => Int, { description: 'How many leads it erases (0: nothing was held about that person in the company).' })
  leadCount!: number;

  @Field(() => [String], { description: 'The steps done, in order.' })
  stepsDone!: string[];

  @Field(() => [String], { description: 'Every step of an erasure, in order.' })
  steps!: string[];

  @Field(() => Date, { description: 'When it was asked for.' })
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When its last step ran.' })
  finishedAt!: Date | null;
}
