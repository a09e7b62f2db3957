import { Field, InputType } from 'type-graphql';

@InputType()
export class CompanyInput {
  @Field(() => String, { nullable: true, description: 'Required on create.' })
  name?: string | null;
}
