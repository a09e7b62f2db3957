import { CompanyStoreType } from './company-store-type.entity';
import { companyDemo } from '../company/company.demo';
import { STORE_TYPES } from '../demo/demo-network';
import type { DemoPart } from '../demo/demo-part';

/** The demo company's store types, by name. */
export const companyStoreTypeDemo: DemoPart<Map<string, CompanyStoreType>> = {
  name: 'company-store-type',
  after: [companyDemo],
  seed: (demo) => {
    const company = demo.get(companyDemo);
    return new Map(STORE_TYPES.map((t) => [t.name, demo.tx.create(CompanyStoreType, { company, name: t.name, boost: t.boost })]));
  },
};
