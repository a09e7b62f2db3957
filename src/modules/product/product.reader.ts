import { newInstanceOf, selectColumns, type ColumnMap } from '../../db/columns';
import type { RowReader } from '../../search/list';
import { Product } from './product.entity';

/** A product as the list reads it: the `Product` type's fields (`companyId`, `collectionId` as references). */
interface StoredProduct {
  id: string;
  /** Timestamps arrive as text, and only when the operation asks for them. */
  createdAt?: string;
  updatedAt?: string;
  sku: string;
  name: string;
  category: string | null;
  url: string | null;
  externalId: string | null;
  companyId: string;
  collectionId: string | null;
}

const PRODUCT: ColumnMap<StoredProduct> = {
  id: 'id',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  sku: 'sku',
  name: 'name',
  category: 'category',
  url: 'url',
  externalId: 'external_id',
  companyId: 'company_id',
  collectionId: 'collection_id',
};

const { createdAt: _createdAt, updatedAt: _updatedAt, ...UNSTAMPED } = PRODUCT;

/** The fields of a listed product, in the order each row is built (rows of one shape read fast). */
const ROW_KEYS = ['id', 'createdAt', 'updatedAt', 'sku', 'name', 'category', 'url', 'externalId', 'company', 'collection'] as const;

const reader = <R>(map: ColumnMap<R>): RowReader<Product> => {
  const columns = selectColumns(map, 'p');
  return {
    sql: (ids) => ({ sql: `select ${columns} from products p where p.id = any(${ids})`, bindings: [] }),
    columns: (alias) => (alias === 'p' ? columns : selectColumns(map, alias)),
    row: (raw) => {
      const r = raw as StoredProduct;
      // Built field by field in the entity's prototype: the type's `companyId` and `collectionId` are getters
      // of the entity over its references, which type-graphql then reads on the row as it is.
      const product = newInstanceOf(Product, ROW_KEYS) as unknown as Record<(typeof ROW_KEYS)[number], unknown>;
      product.id = r.id;
      product.createdAt = r.createdAt === undefined ? undefined : new Date(r.createdAt);
      product.updatedAt = r.updatedAt === undefined ? undefined : new Date(r.updatedAt);
      product.sku = r.sku;
      product.name = r.name;
      product.category = r.category;
      product.url = r.url;
      product.externalId = r.externalId;
      product.company = { id: r.companyId };
      product.collection = r.collectionId ? { id: r.collectionId } : null;
      return product as unknown as Product;
    },
  };
};

const READERS = { stamped: reader(PRODUCT), plain: reader(UNSTAMPED) };

/**
 * The product list's read model: a page of products as plain rows with the fields of the `Product`
 * type (its GraphQL fields are its columns; `images` is resolved by id), read by the search's own
 * statement (by the page's own range scan when it can: `RowReader.columns`), not managed entities. `stamps`: whether the operation asks for `createdAt` or
 * `updatedAt`; without, the statement leaves them out (the REST answer has neither).
 */
export function productRows(stamps = true): RowReader<Product> {
  return stamps ? READERS.stamped : READERS.plain;
}
