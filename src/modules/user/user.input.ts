import { Field, InputType } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';
import { Role, RoleEnum } from './role';

/**
 * A new user. Fields are optional here so that the service reports every problem as 422 at once.
 * Scope assignments (PRODUCT.md section 2) must belong to the user's company or retailer, and only the
 * one the role uses may be given: `territoryId` (territory manager, required), `companyRetailerIds`
 * (retailer manager), `companyRetailerLocationIds` (location user, sales associate),
 * `retailerLocationIds` (store manager).
 */
@InputType({ description: 'A new user: a person with one role in one company or retailer. Every problem is reported at once as BAD_USER_INPUT with details.' })
export class CreateUserInput {
  @Field(() => String, { nullable: true, description: 'Unique, stored lower-cased.' })
  email?: string | null;

  @Field(() => String, { nullable: true, description: "The person's name." })
  name?: string | null;

  @Field(() => RoleEnum, { nullable: true, description: 'The role; company roles need a company, retailer roles a retailer.' })
  role?: Role | null;

  @Field(() => UUIDScalar, { nullable: true, description: "Company roles; an admin's own company by default." })
  companyId?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "Retailer roles; an admin's own retailer by default." })
  retailerId?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'The territory of a company territory manager (required for that role, refused for others).' })
  territoryId?: string | null;

  @Field(() => [UUIDScalar], { nullable: true, description: 'The company retailers of a company retailer manager.' })
  companyRetailerIds?: string[] | null;

  @Field(() => [UUIDScalar], { nullable: true, description: 'The company retailer locations of a location user or sales associate.' })
  companyRetailerLocationIds?: string[] | null;

  @Field(() => [UUIDScalar], { nullable: true, description: 'The retailer locations of a retailer store manager.' })
  retailerLocationIds?: string[] | null;
}

/**
 * Changes to a user; absent fields are kept, an assignment list replaces the old one. The user stays in
 * its company or retailer, so a new role must be one of the same kind. Assignments the new role does not
 * use are cleared.
 */
@InputType({ description: 'Changes to a user: absent fields are kept, a sent list replaces the old one. A new role must be of the same kind (company or retailer); assignments it does not use are cleared.' })
export class UpdateUserInput {
  @Field(() => String, { nullable: true, description: 'The login email; unique, stored lower-cased.' })
  email?: string | null;

  @Field(() => String, { nullable: true, description: "The person's name." })
  name?: string | null;

  @Field(() => RoleEnum, { nullable: true, description: 'The new role, of the same kind as the old one.' })
  role?: Role | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'The territory of a company territory manager.' })
  territoryId?: string | null;

  @Field(() => [UUIDScalar], { nullable: true, description: 'The company retailers of a company retailer manager (replaces the list).' })
  companyRetailerIds?: string[] | null;

  @Field(() => [UUIDScalar], { nullable: true, description: 'The company retailer locations of a location user or sales associate (replaces the list).' })
  companyRetailerLocationIds?: string[] | null;

  @Field(() => [UUIDScalar], { nullable: true, description: 'The retailer locations of a retailer store manager (replaces the list).' })
  retailerLocationIds?: string[] | null;
}
