import { Field, InputType } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';
import { LocationInput } from '../contact/contact.input';

/** SPEC 2.4 `physical_address` of a company retailer. */
@InputType({ description: "A company retailer's `physicalAddress`, geocoded on write." })
export class CompanyRetailerAddressInput extends LocationInput {
  @Field(() => String, { nullable: true, description: 'Accepted for compatibility and ignored: the address belongs to the company retailer.' })
  addressableId?: string | null;

  @Field(() => String, { nullable: true, description: 'Accepted for compatibility and ignored.' })
  addressableScope?: string | null;
}

/** SPEC 2.4 writable attributes; each role writes a subset (PRODUCT.md section 4). */
@InputType({ description: "A company retailer's writable attributes (contract 2.4); attributes the role may not write are dropped (PRODUCT.md 4)." })
export class CompanyRetailerInput {
  @Field(() => UUIDScalar, { nullable: true, description: 'Required on create.' })
  retailerId?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "Defaults to the caller's company." })
  companyId?: string | null;

  @Field(() => String, { nullable: true, description: "The company's name for this retailer." })
  name?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'A territory of the company.' })
  territoryId?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'The company sends this retailer leads (its stores list in the store locator). Default true.' })
  sendingLeads?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'The retailer accepts routed leads. Default true.' })
  receivingLeads?: boolean | null;

  @Field(() => CompanyRetailerAddressInput, { nullable: true, description: 'Null removes the address.' })
  physicalAddress?: CompanyRetailerAddressInput | null;
}

export type CompanyRetailerAttribute = Exclude<keyof CompanyRetailerInput, symbol>;
