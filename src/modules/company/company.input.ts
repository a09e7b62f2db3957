import { Field, InputType } from 'type-graphql';

@InputType({ description: "A company's writable attributes (platform operator only)." })
export class CompanyInput {
  @Field(() => String, { nullable: true, description: 'Required on create.' })
  name?: string | null;
}
