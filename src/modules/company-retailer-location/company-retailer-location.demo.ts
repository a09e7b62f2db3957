import { CompanyRetailerLocation } from './company-retailer-location.entity';
import type { RetailerLocation } from '../retailer-location/retailer-location.entity';
import { companyDemo } from '../company/company.demo';
import { companyRetailerDemo } from '../company-retailer/company-retailer.demo';
import { retailerLocationDemo } from '../retailer-location/retailer-location.demo';
import { territoryDemo } from '../territory/territory.demo';
import { companyStoreTypeDemo } from '../company-store-type/company-store-type.demo';
import { STORES } from '../demo/demo-network';
import type { DemoPart } from '../demo/demo-part';

/** A demo store in the company's network: its CRL, the retailer's store and its row of `STORES`. */
export interface DemoStore {
  crl: CompanyRetailerLocation;
  retailerLocation: RetailerLocation;
  spec: (typeof STORES)[number];
}

/** The retailer's stores in the demo company's network, each in a territory with a store type, sending and receiving leads. */
export const crlDemo: DemoPart<DemoStore[]> = {
  name: 'company-retailer-location',
  after: [companyDemo, companyRetailerDemo, retailerLocationDemo, territoryDemo, companyStoreTypeDemo],
  seed: (demo) => {
    const company = demo.get(companyDemo);
    const companyRetailer = demo.get(companyRetailerDemo);
    const territories = demo.get(territoryDemo);
    const storeTypes = demo.get(companyStoreTypeDemo);
    const stores = demo.get(retailerLocationDemo).map((retailerLocation, i) => {
      const spec = STORES[i];
      const crl = demo.tx.create(CompanyRetailerLocation, {
        company,
        companyRetailer,
        retailerLocation,
        territory: territories.get(spec.territory)!,
        companyStoreType: storeTypes.get(spec.storeType)!,
        deliveryRadius: 25,
        website: retailerLocation.website,
        sendingLeads: true,
        receivingLeads: true,
      });
      return { crl, retailerLocation, spec };
    });
    demo.report.stores = stores.map((s) => ({ companyRetailerLocationId: s.crl.id, retailerLocationId: s.retailerLocation.id, name: s.retailerLocation.name, city: s.spec.city }));
    return stores;
  },
};
