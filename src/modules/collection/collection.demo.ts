import { Collection } from './collection.entity';
import { companyDemo } from '../company/company.demo';
import { COLLECTION } from '../demo/demo-network';
import type { DemoPart } from '../demo/demo-part';

/** The demo company's one collection (its bikes). */
export const collectionDemo: DemoPart<Collection> = {
  name: 'collection',
  after: [companyDemo],
  seed: (demo) => demo.tx.create(Collection, { company: demo.get(companyDemo), name: COLLECTION }),
};
