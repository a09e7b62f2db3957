import type { EntityManager } from '@mikro-orm/postgresql';
import type { Validator } from '../../errors';
import { Assign } from '../../db/assign';
import { planNested } from '../../db/nested-write';
import { DeliveryArea } from './delivery-area.entity';
import type { CompanyRetailerLocation } from './company-retailer-location.entity';
import type { DeliveryAreaInput } from './company-retailer-location.input';

const FIELD = 'delivery_areas';
/**
 * Delivery areas one location may hold (a write sends at most LIMITS.maxInputObjects, so repeated writes
 * are what this bounds): every show and list of the location embeds them all.
 */
export const MAX_DELIVERY_AREAS = 1000;

/** Applies delivery area items to a CRL: `id` changes one (or removes it with `_destroy`), no `id` adds one. */
export async function writeDeliveryAreas(
  em: EntityManager,
  crl: CompanyRetailerLocation,
  items: readonly DeliveryAreaInput[],
  v: Validator,
  crlIsNew: boolean,
): Promise<void> {
  const current = crlIsNew ? [] : await em.find(DeliveryArea, { companyRetailerLocation: crl.id });
  let count = current.length;
  for (const step of planNested(items, current)) {
    if (step.op === 'unknown') {
      v.add(`${FIELD}.id`, 'invalid', 'is not the id of a delivery area of this location');
      continue;
    }
    if (step.op === 'remove') {
      em.remove(step.entity);
      count--;
      continue;
    }
    const { item } = step;
    let area: DeliveryArea;
    if (step.op === 'update') area = step.entity;
    else {
      area = em.create(DeliveryArea, { companyRetailerLocation: crl, postalCode: '' });
      count++;
      if (item.postalCode === undefined) v.add(`${FIELD}.postal_code`, 'blank');
    }
    const set = new Assign(area, v);
    set.text('postalCode', item.postalCode, `${FIELD}.postal_code`, true);
    set.text('country', item.country, `${FIELD}.country`);
  }
  if (count > MAX_DELIVERY_AREAS) v.add(FIELD, 'invalid', `must have at most ${MAX_DELIVERY_AREAS} items per location`);
}
