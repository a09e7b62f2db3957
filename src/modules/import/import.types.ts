import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'One problem with one CSV row: its line (the header is line 1), the column and why.' })
export class ImportRowError {
  @Field(() => Int)
  row!: number;

  @Field(() => String)
  column!: string;

  @Field(() => String)
  reason!: string;
}

@ObjectType({ description: 'What an import did (or, on a dry run, would do): the same report as `leadnet import ... --json`.' })
export class ImportReport {
  @Field(() => Int, { description: 'Data rows read.' })
  rows!: number;

  @Field(() => Int)
  created!: number;

  @Field(() => Int)
  updated!: number;

  @Field(() => Int)
  unchanged!: number;

  @Field(() => Int, { description: 'Rows reported in `errors` and skipped.' })
  invalid!: number;

  @Field(() => Boolean)
  dryRun!: boolean;

  @Field(() => [ImportRowError], { description: 'The first 1,000 row errors, in file order.' })
  errors!: ImportRowError[];

  @Field(() => Int, { description: 'Row errors beyond the 1,000 listed.' })
  errorsOmitted!: number;

  @Field(() => [String], { description: 'Header columns this import does not read (an id or company_id column is never taken from a file).' })
  ignoredColumns!: string[];
}
