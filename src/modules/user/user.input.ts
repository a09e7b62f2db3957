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
@InputType()
export class CreateUserInput {
  @Field(() => String, { nullable: true, description: 'Unique, stored lower-cased.' })
  email?: string | null;

  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => RoleEnum, { nullable: true })
  role?: Role | null;

  @Field(() => UUIDScalar, { nullable: true, description: "Company roles; an admin's own company by default." })
  companyId?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "Retailer roles; an admin's own retailer by default." })
  retailerId?: string | null;

  @Field(() => UUIDScalar, { nullable: true })
  territoryId?: string | null;

  @Field(() => [UUIDScalar], { nullable: true })
  companyRetailerIds?: string[] | null;

  @Field(() => [UUIDScalar], { nullable: true })
  companyRetailerLocationIds?: string[] | null;

  @Field(() => [UUIDScalar], { nullable: true })
  retailerLocationIds?: string[] | null;
}

/**
 * Changes to a user; absent fields are kept, an assignment list replaces the old one. The user stays in
 * its company or retailer, so a new role must be one of the same kind. Assignments the new role does not
 * use are cleared.
 */
@InputType()
export class UpdateUserInput {
  @Field(() => String, { nullable: true })
  email?: string | null;

  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => RoleEnum, { nullable: true })
  role?: Role | null;

  @Field(() => UUIDScalar, { nullable: true })
  territoryId?: string | null;

  @Field(() => [UUIDScalar], { nullable: true })
  companyRetailerIds?: string[] | null;

  @Field(() => [UUIDScalar], { nullable: true })
  companyRetailerLocationIds?: string[] | null;

  @Field(() => [UUIDScalar], { nullable: true })
  retailerLocationIds?: string[] | null;
}
