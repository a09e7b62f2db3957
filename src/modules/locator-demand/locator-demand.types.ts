import { Field, Float, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum LocatorDemandGroupBy {
  CELL = 'cell',
  PRODUCT = 'product',
  DAY = 'day',
  OUTCOME = 'outcome',
}

registerEnumType(LocatorDemandGroupBy, {
  name: 'LocatorDemandGroupBy',
  description: 'One way to group the store locator searches.',
  valuesConfig: {
    CELL: { description: 'The coarse cell searched (0.1 degree of latitude and of longitude).' },
    PRODUCT: { description: 'The product asked for (each search counts once per product it asked for; searches asking for none are left out).' },
    DAY: { description: 'The UTC day of the search.' },
    OUTCOME: { description: 'Whether the search found a near store, nothing, or only far stores.' },
  },
});

export enum LocatorDemandOutcome {
  FOUND = 'found',
  NO_RESULT = 'none',
  FAR_ONLY = 'far',
}

registerEnumType(LocatorDemandOutcome, {
  name: 'LocatorDemandOutcome',
  description: 'What a store locator search found.',
  valuesConfig: {
    FOUND: { description: 'A store nearer than the far distance (`farKm`).' },
    NO_RESULT: { description: 'No store.' },
    FAR_ONLY: { description: 'Stores, the nearest `farKm` away or more.' },
  },
});

@InputType({ description: 'A box in degrees (`west` larger than `east` crosses the antimeridian).' })
export class LocatorDemandBox {
  @Field(() => Float, { description: 'Southern latitude, -90 to 90.' })
  south!: number;

  @Field(() => Float, { description: 'Western longitude, -180 to 180.' })
  west!: number;

  @Field(() => Float, { description: 'Northern latitude, -90 to 90, at least `south`.' })
  north!: number;

  @Field(() => Float, { description: 'Eastern longitude, -180 to 180.' })
  east!: number;
}

@InputType({ description: 'A point in degrees: the cell holding it.' })
export class LocatorDemandPoint {
  @Field(() => Float, { description: 'Latitude, -90 to 90.' })
  latitude!: number;

  @Field(() => Float, { description: 'Longitude, -180 to 180.' })
  longitude!: number;
}

@InputType({ description: 'Which searches: a range of days, and optionally a place and a product.' })
export class LocatorDemandWhere {
  @Field(() => String, { description: 'The first day (UTC), `YYYY-MM-DD`.' })
  from!: string;

  @Field(() => String, { description: 'The last day (UTC), `YYYY-MM-DD`, at most 400 days after `from`.' })
  to!: string;

  @Field(() => LocatorDemandBox, { nullable: true, description: 'Only the cells this box reaches.' })
  bbox?: LocatorDemandBox | null;

  @Field(() => LocatorDemandPoint, { nullable: true, description: 'Only the cell holding this point.' })
  cell?: LocatorDemandPoint | null;

  @Field(() => String, {
    nullable: true,
    description: 'Only the searches asking for this product, as the locator was asked: `sku:<sku>`, `id:<uuid>`, `external_id:<id>` or `collection_id:<uuid>`.',
  })
  product?: string | null;
}

@ObjectType({ description: 'A coarse cell of 0.1 degree per axis, in degrees.' })
export class LocatorDemandCell {
  @Field(() => Float, { description: "The centre's latitude." })
  latitude!: number;

  @Field(() => Float, { description: "The centre's longitude." })
  longitude!: number;

  @Field(() => Float, { description: 'Southern edge.' })
  south!: number;

  @Field(() => Float, { description: 'Western edge.' })
  west!: number;

  @Field(() => Float, { description: 'Northern edge.' })
  north!: number;

  @Field(() => Float, { description: 'Eastern edge.' })
  east!: number;
}

@ObjectType({ description: 'Searches by the distance from the searched point to the nearest store found (on the first page).' })
export class LocatorDemandNearest {
  @Field(() => Int, { description: 'Under 5 km.' })
  under5km!: number;

  @Field(() => Int, { description: '5 to 10 km.' })
  under10km!: number;

  @Field(() => Int, { description: '10 to 25 km.' })
  under25km!: number;

  @Field(() => Int, { description: '25 to 50 km.' })
  under50km!: number;

  @Field(() => Int, { description: '50 to 100 km.' })
  under100km!: number;

  @Field(() => Int, { description: '100 km or more.' })
  over100km!: number;
}

@ObjectType({ description: 'The searches of one group.' })
export class LocatorDemandGroup {
  @Field(() => LocatorDemandCell, { nullable: true, description: 'The cell (with `groupBy: CELL`); null otherwise.' })
  cell!: LocatorDemandCell | null;

  @Field(() => String, { nullable: true, description: 'The product asked for, `<key>:<value>` (with `groupBy: PRODUCT`); null otherwise.' })
  product!: string | null;

  @Field(() => String, { nullable: true, description: 'The UTC day, `YYYY-MM-DD` (with `groupBy: DAY`); null otherwise.' })
  day!: string | null;

  @Field(() => LocatorDemandOutcome, { nullable: true, description: 'The outcome (with `groupBy: OUTCOME`); null otherwise.' })
  outcome!: LocatorDemandOutcome | null;

  @Field(() => Int, { description: 'Searches.' })
  searches!: number;

  @Field(() => Int, { description: 'Searches that found no store.' })
  noResultSearches!: number;

  @Field(() => Int, { description: 'Searches whose nearest store was `farKm` away or more.' })
  farOnlySearches!: number;

  @Field(() => Int, { description: 'Searches that asked for at least one product.' })
  productSearches!: number;

  @Field(() => Float, { description: 'Stores found per search, on average (`meta.total`).' })
  averageResults!: number;

  @Field(() => LocatorDemandNearest, { description: 'Searches by the distance to the nearest store found.' })
  nearest!: LocatorDemandNearest;
}

@ObjectType({ description: "A company's store locator searches, counted (docs/locator-demand.md)." })
export class LocatorDemandReport {
  @Field(() => [LocatorDemandGroup], { description: 'The groups, most searches first.' })
  groups!: LocatorDemandGroup[];

  @Field(() => Boolean, { description: 'Whether more groups than `first` matched (the ones with the fewest searches were left out).' })
  truncated!: boolean;

  @Field(() => Float, { description: 'The cell size, in degrees of latitude and of longitude (0.1).' })
  cellDegrees!: number;

  @Field(() => Float, { description: 'From this distance (km) the nearest store counts as far.' })
  farKm!: number;
}
