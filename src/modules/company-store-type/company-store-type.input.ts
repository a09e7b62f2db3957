import { Field, Float, InputType } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';

@InputType({ description: "A company store type's writable attributes." })
export class CompanyStoreTypeInput {
  @Field(() => UUIDScalar, { nullable: true, description: "Required from the platform operator on create; defaults to a company admin's company. Cannot change." })
  companyId?: string | null;

  @Field(() => String, { nullable: true, description: 'Required on create; unique within the company.' })
  name?: string | null;

  @Field(() => Float, { nullable: true, description: 'Store locator boost, >= 0 (default 0).' })
  boost?: number | null;
}
