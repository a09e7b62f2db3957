import { Entity, Index, ManyToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';
import { Collection } from '../collection/collection.entity';

/** An item of a company's catalog; `sku` is unique within the company. */
@ObjectType()
@Entity({ tableName: 'products' })
@Unique({ name: 'products_company_id_sku_unique', properties: ['company', 'sku'] })
export class Product extends BaseEntity {
  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Company;

  @Index()
  @ManyToOne(() => Collection, { nullable: true, deleteRule: 'set null' })
  collection?: Collection | null;

  @Field(() => String)
  @Property({ type: 'string' })
  sku!: string;

  @Field(() => String)
  @Property({ type: 'string' })
  name!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  category?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  url?: string | null;

  @Field(() => String, { nullable: true })
  @Index()
  @Property({ type: 'string', nullable: true })
  externalId?: string | null;

  @Field(() => ID)
  get companyId(): string & Opt {
    return this.company.id;
  }

  @Field(() => ID, { nullable: true })
  get collectionId(): string | null {
    return this.collection?.id ?? null;
  }
}
