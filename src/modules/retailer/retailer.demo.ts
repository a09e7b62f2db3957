import { Retailer } from './retailer.entity';
import { RETAILER } from '../demo/demo-network';
import type { DemoPart } from '../demo/demo-part';

/** The demo retailer, which owns the four stores. */
export const retailerDemo: DemoPart<Retailer> = {
  name: 'retailer',
  seed: ({ tx, report }) => {
    const retailer = tx.create(Retailer, { name: RETAILER });
    report.retailer = { id: retailer.id, name: retailer.name };
    return retailer;
  },
};
