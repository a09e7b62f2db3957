import { notFound } from '../../errors';
import { isUuid, type ParsedParams } from './store-locator.params';
import { StoreLocatorReader, type StoreLocatorResult } from './store-locator.reader';
import type { Execute, Facet, StoreLocatorSearch } from './store-locator.types';
import type { AggResult } from '../../search/types';

export interface StoreLocatorPage {
  results: StoreLocatorResult[];
  meta: { total: number; page: number; per_page: number; total_pages: number; aggs: Record<Facet, AggResult> };
}

/** SPEC 4.5 and 4.6: the public store locator. No API key, no role scope. */
export class StoreLocatorService {
  constructor(
    private readonly execute: Execute,
    private readonly backend: StoreLocatorSearch,
    private readonly reader: StoreLocatorReader,
  ) {}

  /** The company a search runs for: a UUID of an existing company, else 404. */
  async company(id: string | undefined): Promise<string> {
    if (isUuid(id)) {
      const [row] = await this.execute('select id from companies where id = ?::uuid', [id]);
      if (row) return row.id;
    }
    throw notFound('Company', id ?? '');
  }

  async search(companyId: string, params: ParsedParams): Promise<StoreLocatorPage> {
    const hits = await this.backend.search({ companyId, ...params });
    const results = await this.reader.load(hits.ids);
    return {
      results,
      meta: {
        total: hits.total,
        page: params.page,
        per_page: params.perPage,
        total_pages: Math.ceil(hits.total / params.perPage),
        aggs: hits.aggs,
      },
    };
  }

  /** Any CRL by id, whatever its lead flags (SPEC 4.6); 404 when unknown or not a UUID. */
  async show(id: string): Promise<StoreLocatorResult> {
    const [result] = isUuid(id) ? await this.reader.load([id.toLowerCase()]) : [];
    if (!result) throw notFound('CompanyRetailerLocation', id);
    return result;
  }
}
