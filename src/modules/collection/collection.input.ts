import { Field, InputType } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';

@InputType({ description: "A collection's writable attributes." })
export class CollectionInput {
  @Field(() => UUIDScalar, { nullable: true, description: "Required from the platform operator on create; defaults to a company admin's company. Cannot change." })
  companyId?: string | null;

  @Field(() => String, { nullable: true, description: 'Required on create; unique within the company.' })
  name?: string | null;
}
