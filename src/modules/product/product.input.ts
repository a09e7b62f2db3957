import { Field, InputType } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';

/** SPEC 2.6 writable attributes. Every field is optional here: the service reports what is missing as 422. */
@InputType({ description: "A product's writable attributes (contract 2.6); a missing `sku` or `name` is 422 `blank`." })
export class ProductInput {
  @Field(() => String, { nullable: true, description: 'Stock keeping unit; required, unique within the company (a duplicate is 422 `taken`).' })
  sku?: string | null;

  @Field(() => String, { nullable: true, description: 'The product name; required.' })
  name?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "Defaults to the caller's company." })
  companyId?: string | null;

  @Field(() => String, { nullable: true, description: 'Free-form category, e.g. `Tools`.' })
  category?: string | null;

  @Field(() => String, { nullable: true, description: "The product's page on the company's site." })
  url?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "A collection of the product's company; null removes it from its collection." })
  collectionId?: string | null;

  @Field(() => String, { nullable: true, description: "The product's id in the company's own systems." })
  externalId?: string | null;
}
