import type { Context } from '../../context';
import { about, authorize, can } from '../../access/policy';
import { invalid, notFound, validationDetail, Validator } from '../../errors';
import { isUuid } from '../../search/list';
import { cellBounds, cellOf, cellRange, CELL_DEGREES } from './locator-demand.cells';
import { locatorDemandPolicy, defaultDemandCompany } from './locator-demand.policy';
import { companyExists, demandGroups, type DemandKey, type DemandQuery } from './locator-demand.repository';
import { LocatorDemandGroupBy, LocatorDemandOutcome, type LocatorDemandGroup, type LocatorDemandReport, type LocatorDemandWhere } from './locator-demand.types';

/** Groups answered at most (`first`). */
export const MAX_GROUPS = 5000;
/** The longest range of days asked at once. */
export const MAX_DAYS = 400;

const isDay = (value: unknown): value is string => {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === value;
};
const latitude = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= -90 && v <= 90;
const longitude = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= -180 && v <= 180;

/** The `where` and `groupBy` checked (422 on each bad attribute) into the repository's query. */
export function demandQuery(companyId: string, where: LocatorDemandWhere, groupBy: LocatorDemandGroupBy[], first: number): DemandQuery {
  const v = new Validator();
  if (!isDay(where.from)) v.add('from', 'invalid', 'must be a date, YYYY-MM-DD');
  if (!isDay(where.to)) v.add('to', 'invalid', 'must be a date, YYYY-MM-DD');
  else if (isDay(where.from)) {
    const days = (Date.parse(where.to) - Date.parse(where.from)) / 86_400_000;
    if (days < 0) v.add('to', 'invalid', 'must not be before from');
    else if (days > MAX_DAYS) v.add('to', 'invalid', `must be at most ${MAX_DAYS} days after from`);
  }
  if (where.bbox && where.cell) v.add('cell', 'invalid', 'give a cell or a bbox, not both');
  const box = where.bbox;
  if (box && (!latitude(box.south) || !latitude(box.north) || !longitude(box.west) || !longitude(box.east) || box.south > box.north)) {
    v.add('bbox', 'invalid', 'must be south <= north latitudes (-90 to 90) and longitudes (-180 to 180)');
  }
  if (where.cell && (!latitude(where.cell.latitude) || !longitude(where.cell.longitude))) v.add('cell', 'invalid', 'must be a latitude (-90 to 90) and a longitude (-180 to 180)');
  const product = where.product ?? undefined;
  if (product !== undefined && (product.length === 0 || product.length > 300 || product.includes('\u0000'))) v.add('product', 'invalid', 'must be 1 to 300 characters');
  if (!Number.isInteger(first) || first < 1 || first > MAX_GROUPS) v.add('first', 'invalid', `must be 1 to ${MAX_GROUPS}`);
  if (groupBy.length > 4) v.add('group_by', 'invalid', 'has at most 4 keys');
  v.throwIfAny();
  let cells: DemandQuery['cells'];
  if (box) cells = cellRange(box);
  else if (where.cell) {
    const c = cellOf(where.cell);
    cells = { lat: [c.lat, c.lat], lng: [c.lng, c.lng] };
  }
  return { companyId, from: where.from, to: where.to, cells, product, groupBy: [...new Set(groupBy)] as DemandKey[], limit: first + 1 };
}

/** What visitors searched for (docs/locator-demand.md): for the company's admins and the platform operator. */
export class LocatorDemandService {
  constructor(private readonly ctx: Context) {}

  async report(companyId: string | null | undefined, where: LocatorDemandWhere, groupBy: LocatorDemandGroupBy[], first: number): Promise<LocatorDemandReport> {
    const caller = this.ctx.caller;
    authorize(caller, 'read', locatorDemandPolicy);
    const company = companyId ?? defaultDemandCompany(caller!);
    if (company === null) throw invalid([validationDetail('company_id', 'blank', "can't be blank: the platform operator names the company")]);
    // Another company is out of scope, as if it did not exist.
    if (!isUuid(company) || !can(caller, 'visible', about(locatorDemandPolicy, { companyId: company }))) throw notFound('Company', company);
    authorize(caller, 'read', about(locatorDemandPolicy, { companyId: company }));
    const q = demandQuery(company, where, groupBy, first);
    if (!(await companyExists(this.ctx.em, company))) throw notFound('Company', company);
    const rows = (await demandGroups(this.ctx.em, q)).filter((r) => Number(r.searches) > 0);
    const groups = rows.slice(0, first).map((r): LocatorDemandGroup => {
      const searches = Number(r.searches);
      const [under5km, under10km, under25km, under50km, under100km, over100km] = r.nearest.map(Number);
      return {
        cell: r.lat_cell === null || r.lng_cell === null ? null : (({ centre, ...edges }) => ({ ...centre, ...edges }))(cellBounds({ lat: r.lat_cell, lng: r.lng_cell })),
        product: r.product,
        day: r.day,
        outcome: (r.outcome as LocatorDemandOutcome | null) ?? null,
        searches,
        noResultSearches: Number(r.no_result),
        farOnlySearches: Number(r.far_only),
        productSearches: Number(r.product_searches),
        averageResults: searches ? Math.round((Number(r.results) / searches) * 100) / 100 : 0,
        nearest: { under5km, under10km, under25km, under50km, under100km, over100km },
      };
    });
    return { groups, truncated: rows.length > first, cellDegrees: CELL_DEGREES, farKm: this.ctx.config.locatorDemand.farMetres / 1000 };
  }
}
