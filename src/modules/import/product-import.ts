import type { EntityManager } from '@mikro-orm/postgresql';
import { ImportError, readCsv, type RowError } from './csv';
import {
  addRowErrors,
  checkAborted,
  IMPORT_BATCH,
  ignoredColumns,
  inImportTransaction,
  newReport,
  type ImportInput,
  type ImportOptions,
  type ImportReport,
} from './transaction';
import { collectionIdsByName, compareProducts, replaceStock, storeIdsByExternalId, upsertProducts } from './import.queries';

export { ImportError, IMPORT_BATCH, type ImportReport };
export const PRODUCT_COLUMNS = ['sku', 'name', 'category', 'url', 'external_id', 'collection', 'stocked_at', 'available_at'] as const;
const MAX_TEXT = 255;

interface ProductRow {
  line: number;
  sku: string;
  name: string;
  category: string | null;
  url: string | null;
  external_id: string | null;
  collection: string | null;
  /** With a `stocked_at` or `available_at` column: the product's whole stock, by CRL id. */
  stock: StockRow[] | null;
}

interface StockRow {
  crl: string;
  stocked: boolean;
  available: boolean;
}

/**
 * `leadnet import products`: one product per CSV row of a company's catalog, matched on its SKU (a
 * re-import updates instead of duplicating). With a `stocked_at` or `available_at` column, each row also
 * sets the product's whole stock: the stores (by `import locations` external id) that stock it or have it
 * available. Invalid rows are reported (line, column, reason) and skipped; valid rows are written in
 * batches of `IMPORT_BATCH` set-based statements, all in one transaction under the company's import lock
 * (`inImportTransaction`): a file-level error, Ctrl-C or a crash writes nothing. A dry run reads the
 * catalog and reports what would change, writing nothing.
 */
export async function importProducts(em: EntityManager, companyId: string, input: ImportInput, options: ImportOptions): Promise<ImportReport> {
  return inImportTransaction(em, companyId, 'products', options, (tx) => run(tx, companyId, input, options));
}

async function run(em: EntityManager, companyId: string, input: ImportInput, options: ImportOptions): Promise<ImportReport> {
  const report = newReport(options.dryRun);
  const collections = await collectionIdsByName(em, companyId);
  const stores = await storeIdsByExternalId(em, companyId);
  const seen = new Map<string, number>();
  let batch: Array<ProductRow & { collection_id: string | null }> = [];
  let withStock = false;
  const flush = async () => {
    if (!batch.length) return;
    checkAborted(options.signal);
    const counts = options.dryRun ? await compare(em, companyId, batch) : await write(em, companyId, batch);
    report.created += counts.created;
    report.updated += counts.updated;
    report.unchanged += counts.unchanged;
    batch = [];
    options.onProgress?.(report.rows);
  };
  const onHeader = (header: string[]) => {
    const missing = ['sku', 'name'].filter((c) => !header.includes(c));
    if (missing.length) throw new ImportError(`the header has no ${missing.join(', ')} column (columns: ${PRODUCT_COLUMNS.join(', ')})`);
    withStock = header.includes('stocked_at') || header.includes('available_at');
    report.ignored_columns = ignoredColumns(header, PRODUCT_COLUMNS);
  };
  for await (const { line, values } of readCsv(input, { encoding: options.encoding, source: options.source, onHeader })) {
    checkAborted(options.signal);
    report.rows++;
    const errors: RowError[] = [];
    const text = (column: string, required: boolean): string | null => {
      const v = (values[column] ?? '').trim();
      if (!v) {
        if (required) errors.push({ row: line, column, reason: "can't be blank" });
        return null;
      }
      if (v.length > MAX_TEXT) errors.push({ row: line, column, reason: `is longer than ${MAX_TEXT} characters` });
      return v;
    };
    const row: ProductRow = {
      line,
      sku: text('sku', true) ?? '',
      name: text('name', true) ?? '',
      category: text('category', false),
      url: text('url', false),
      external_id: text('external_id', false),
      collection: text('collection', false),
      stock: null,
    };
    if (withStock) {
      // `STORE-1; STORE-2`: external ids (`import locations`) of the company's stores.
      const ids = (column: string) => {
        const list = (values[column] ?? '').split(';').map((x) => x.trim()).filter(Boolean);
        const unknown = list.filter((x) => !stores.has(x));
        if (unknown.length) errors.push({ row: line, column, reason: `no store with external id ${unknown.map((x) => `"${x}"`).join(', ')} in this company` });
        return new Set(list.filter((x) => stores.has(x)).map((x) => stores.get(x)!));
      };
      const stocked = ids('stocked_at');
      const available = ids('available_at');
      row.stock = [...new Set([...stocked, ...available])].sort().map((crl) => ({ crl, stocked: stocked.has(crl), available: available.has(crl) }));
    }
    if (row.url && !/^https?:\/\/\S+$/i.test(row.url)) errors.push({ row: line, column: 'url', reason: 'must be an http or https URL' });
    const collectionId = row.collection ? (collections.get(row.collection.toLowerCase()) ?? null) : null;
    if (row.collection && !collectionId) errors.push({ row: line, column: 'collection', reason: `no collection named "${row.collection}" in this company` });
    if (row.sku && seen.has(row.sku)) errors.push({ row: line, column: 'sku', reason: `repeats the SKU of line ${seen.get(row.sku)}` });
    if (errors.length) {
      addRowErrors(report, errors);
      continue;
    }
    seen.set(row.sku, line);
    batch.push({ ...row, collection_id: collectionId });
    if (batch.length >= IMPORT_BATCH) await flush();
  }
  await flush();
  return report;
}

/** Whether each row would create, update (its attributes or, when given, its stock) or leave its product. */
async function compare(em: EntityManager, companyId: string, rows: ProductRow[]) {
  const found = await compareProducts(em, companyId, rows);
  const bySku = new Map(rows.map((r) => [r.sku, r]));
  const counts = { created: 0, updated: 0, unchanged: 0 };
  for (const f of found) {
    const given = bySku.get(f.sku)!.stock;
    if (f.new) counts.created++;
    else if (f.changed || (given && JSON.stringify(given) !== JSON.stringify([...f.stock].sort((a, b) => (a.crl < b.crl ? -1 : 1))))) counts.updated++;
    else counts.unchanged++;
  }
  return counts;
}

/** One batch, in the import's transaction: rows that change nothing are not rewritten. */
async function write(tx: EntityManager, companyId: string, rows: ProductRow[]) {
  const before = await compare(tx, companyId, rows);
  await upsertProducts(tx, companyId, rows);
  const stocked = rows.filter((r) => r.stock);
  if (stocked.length) await replaceStock(tx, companyId, stocked);
  return before;
}
