import { Field, InputType } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';

/** SPEC 2.6 writable attributes. Every field is optional here: the service reports what is missing as 422. */
@InputType()
export class ProductInput {
  @Field(() => String, { nullable: true })
  sku?: string | null;

  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "Defaults to the caller's company." })
  companyId?: string | null;

  @Field(() => String, { nullable: true })
  category?: string | null;

  @Field(() => String, { nullable: true })
  url?: string | null;

  @Field(() => UUIDScalar, { nullable: true })
  collectionId?: string | null;

  @Field(() => String, { nullable: true })
  externalId?: string | null;
}
