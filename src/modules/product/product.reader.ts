import { asInstanceOf, selectColumns, withDates, type ColumnMap } from '../../db/columns';
import type { RowReader } from '../../search/list';
import { Product } from './product.entity';

/** A product as the list reads it: the `Product` type's fields (`companyId`, `collectionId` as references). */
interface StoredProduct {
  id: string;
  createdAt: Date;
  updatedAt: Date;
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

const reader = (columns: string): RowReader<Product> => ({
  sql: (ids) => ({ sql: `select ${columns} from products p where p.id = any(${ids})`, bindings: [] }),
  row: (raw) => {
    const r = withDates(raw as StoredProduct);
    // The type's `companyId` and `collectionId` are getters of the entity over its references; the
    // entity's prototype lets type-graphql take the row as it is instead of converting it.
    return asInstanceOf(Product, {
      id: r.id,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      sku: r.sku,
      name: r.name,
      category: r.category,
      url: r.url,
      externalId: r.externalId,
      company: { id: r.companyId },
      collection: r.collectionId ? { id: r.collectionId } : null,
    });
  },
});

const READERS = { stamped: reader(selectColumns(PRODUCT, 'p')), plain: reader(selectColumns(UNSTAMPED, 'p')) };

/**
 * The product list's read model: a page of products as plain rows with the fields of the `Product`
 * type (its GraphQL fields are its columns; `images` is resolved by id), read by the search's own
 * statement, not managed entities. `stamps`: whether the operation asks for `createdAt` or
 * `updatedAt`; without, the statement leaves them out (the REST answer has neither).
 */
export function productRows(stamps = true): RowReader<Product> {
  return stamps ? READERS.stamped : READERS.plain;
}
