import { CompanyRetailer } from './company-retailer.entity';
import { Location } from '../contact/location.entity';
import { companyDemo } from '../company/company.demo';
import { retailerDemo } from '../retailer/retailer.demo';
import { RETAILER } from '../demo/demo-network';
import type { DemoPart } from '../demo/demo-part';

/** The demo company's relationship with the demo retailer, at the retailer's head office. */
export const companyRetailerDemo: DemoPart<CompanyRetailer> = {
  name: 'company-retailer',
  after: [companyDemo, retailerDemo],
  seed: (demo) => {
    const headquarters = demo.tx.create(Location, {
      addressName: `${RETAILER} head office`,
      streetLineOne: '1 SW Columbia St',
      city: 'Portland',
      province: 'OR',
      postalCode: '97204',
      country: 'US',
      latitude: 45.5145,
      longitude: -122.6767,
      coordinatesSource: 'explicit',
    });
    return demo.tx.create(CompanyRetailer, { company: demo.get(companyDemo), retailer: demo.get(retailerDemo), name: RETAILER, physicalAddress: headquarters });
  },
};
