import { Territory } from './territory.entity';
import { companyDemo } from '../company/company.demo';
import { TERRITORIES } from '../demo/demo-network';
import type { DemoPart } from '../demo/demo-part';

/** The demo company's territories, by name. */
export const territoryDemo: DemoPart<Map<string, Territory>> = {
  name: 'territory',
  after: [companyDemo],
  seed: (demo) => {
    const company = demo.get(companyDemo);
    return new Map(TERRITORIES.map((name) => [name, demo.tx.create(Territory, { company, name })]));
  },
};
