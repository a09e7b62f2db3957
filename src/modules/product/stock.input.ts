import { Field, InputType } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';

/** Whether one store (CRL) stocks a product of its company, and whether it is available there. */
@InputType({ description: 'The stock of one product at one store; `setStock` creates or changes the record of the pair.' })
export class StockInput {
  @Field(() => UUIDScalar, { description: 'The store (a company retailer location of the company).' })
  companyRetailerLocationId!: string;

  @Field(() => UUIDScalar, { description: "A product of the location's company." })
  productId!: string;

  @Field(() => Boolean, { nullable: true, description: 'Default false for a new stock record.' })
  stocked?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Default false for a new stock record.' })
  available?: boolean | null;
}
