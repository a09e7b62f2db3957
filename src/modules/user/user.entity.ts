import { Collection as OrmCollection, Entity, Enum, Index, ManyToMany, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';
import { Retailer } from '../retailer/retailer.entity';
import { Territory } from '../territory/territory.entity';
import { CompanyRetailer } from '../company-retailer/company-retailer.entity';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { RetailerLocation } from '../retailer-location/retailer-location.entity';
import { Role, RoleEnum } from './role';

/**
 * A person with one role, belonging to one company or one retailer (or to the platform).
 * The scope assignments used depend on the role: a territory, company retailers, CRLs or retailer locations.
 */
@ObjectType({ description: "A person with one role in one company or one retailer (or the platform operator); the role and its assignments decide what the user's API keys see and may do (PRODUCT.md 2-4)." })
@Entity({ tableName: 'users' })
export class User extends BaseEntity {
  @Field(() => String, { description: 'The login email, lower-cased; unique.' })
  @Property({ type: 'string', unique: true })
  email!: string;

  @Field(() => String, { nullable: true, description: "The person's name; null when not given." })
  @Property({ type: 'string', nullable: true })
  name?: string | null;

  @Field(() => RoleEnum, { description: 'What the user may see and do.' })
  @Enum({ items: () => Role, nativeEnumName: undefined })
  role!: Role;

  @Index()
  @ManyToOne(() => Company, { nullable: true, deleteRule: 'cascade' })
  company?: Company | null;

  @Index()
  @ManyToOne(() => Retailer, { nullable: true, deleteRule: 'cascade' })
  retailer?: Retailer | null;

  @ManyToOne(() => Territory, { nullable: true, deleteRule: 'set null' })
  territory?: Territory | null;

  @ManyToMany({ entity: () => CompanyRetailer, pivotTable: 'user_company_retailers' })
  companyRetailers = new OrmCollection<CompanyRetailer>(this);

  @ManyToMany({ entity: () => CompanyRetailerLocation, pivotTable: 'user_company_retailer_locations' })
  companyRetailerLocations = new OrmCollection<CompanyRetailerLocation>(this);

  @ManyToMany({ entity: () => RetailerLocation, pivotTable: 'user_retailer_locations' })
  retailerLocations = new OrmCollection<RetailerLocation>(this);

  @Field(() => ID, { nullable: true, description: 'The company of a company role; null otherwise.' })
  get companyId(): string | null {
    return this.company?.id ?? null;
  }

  @Field(() => ID, { nullable: true, description: 'The retailer of a retailer role; null otherwise.' })
  get retailerId(): string | null {
    return this.retailer?.id ?? null;
  }

  @Field(() => ID, { nullable: true, description: 'The territory of a company territory manager; null for other roles.' })
  get territoryId(): string | null {
    return this.territory?.id ?? null;
  }
}
