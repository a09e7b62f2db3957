import { Company } from './company.entity';
import { COMPANY } from '../demo/demo-network';
import type { DemoPart } from '../demo/demo-part';

/** The demo company. A database that has any company is never seeded. */
export const companyDemo: DemoPart<Company> = {
  name: 'company',
  present: async (tx) => (await tx.count(Company, {})) > 0,
  seed: ({ tx, report }) => {
    const company = tx.create(Company, { name: COMPANY });
    report.company = { id: company.id, name: company.name };
    return company;
  },
};
