import { Entity, Index, ManyToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';
import { Collection } from '../collection/collection.entity';

/** An item of a company's catalog; `sku` is unique within the company. */
@ObjectType({ description: "An item of a company's catalog (contract 2.6). Company users see their company's products; retailer users see every product." })
@Entity({ tableName: 'products' })
@Unique({ name: 'products_company_id_sku_unique', properties: ['company', 'sku'] })
export class Product extends BaseEntity {
  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Company;

  @Index()
  @ManyToOne(() => Collection, { nullable: true, deleteRule: 'set null' })
  collection?: Collection | null;

  @Field(() => String, { description: 'Stock keeping unit, unique within the company.' })
  @Property({ type: 'string' })
  sku!: string;

  @Field(() => String, { description: 'The product name.' })
  @Property({ type: 'string' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Free-form category, e.g. `Tools`.' })
  @Property({ type: 'string', nullable: true })
  category?: string | null;

  @Field(() => String, { nullable: true, description: "The product's page on the company's site." })
  @Property({ type: 'string', nullable: true })
  url?: string | null;

  @Field(() => String, { nullable: true, description: "The product's id in the company's own systems." })
  @Index()
  @Property({ type: 'string', nullable: true })
  externalId?: string | null;

  @Field(() => ID, { description: 'The company whose catalog holds it.' })
  get companyId(): string & Opt {
    return this.company.id;
  }

  @Field(() => ID, { nullable: true, description: 'The collection it belongs to; null when none.' })
  get collectionId(): string | null {
    return this.collection?.id ?? null;
  }
}
