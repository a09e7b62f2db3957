import { Field, InputType } from 'type-graphql';

@InputType({ description: "A retailer's writable attributes (platform operator only)." })
export class RetailerInput {
  @Field(() => String, { nullable: true, description: 'Required on create.' })
  name?: string | null;
}
