import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'One problem with one CSV row: its line (the header is line 1), the column and why.' })
export class ImportRowError {
  @Field(() => Int, { description: 'The line number in the file (the header is line 1).' })
  row!: number;

  @Field(() => String, { description: 'The column the problem is in, as the header names it.' })
  column!: string;

  @Field(() => String, { description: 'What is wrong, e.g. "is not a valid postal code".' })
  reason!: string;
}

@ObjectType({ description: 'What an import did (or, on a dry run, would do): the same report as `leadnet import ... --json`.' })
export class ImportReport {
  @Field(() => Int, { description: 'Data rows read.' })
  rows!: number;

  @Field(() => Int, { description: 'Records created (or, on a dry run, that would be).' })
  created!: number;

  @Field(() => Int, { description: 'Existing records changed (matched by their key column).' })
  updated!: number;

  @Field(() => Int, { description: 'Rows that matched a record already holding those values.' })
  unchanged!: number;

  @Field(() => Int, { description: 'Rows reported in `errors` and skipped.' })
  invalid!: number;

  @Field(() => Boolean, { description: 'True when nothing was written.' })
  dryRun!: boolean;

  @Field(() => [ImportRowError], { description: 'The first 1,000 row errors, in file order.' })
  errors!: ImportRowError[];

  @Field(() => Int, { description: 'Row errors beyond the 1,000 listed.' })
  errorsOmitted!: number;

  @Field(() => [String], { description: 'Header columns this import does not read (an id or company_id column is never taken from a file).' })
  ignoredColumns!: string[];
}
