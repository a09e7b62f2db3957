import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from './user.entity';
import { Role } from './role';
import { issueApiKey } from './user.service';
import { companyDemo } from '../company/company.demo';
import { retailerDemo } from '../retailer/retailer.demo';
import { territoryDemo } from '../territory/territory.demo';
import { companyRetailerDemo } from '../company-retailer/company-retailer.demo';
import { crlDemo } from '../company-retailer-location/company-retailer-location.demo';
import { PEOPLE } from '../demo/demo-network';
import type { DemoPart } from '../demo/demo-part';

/**
 * One user of every role, each with an API key and the assignments its role needs. A database that
 * already has one of these e-mail addresses is never seeded.
 */
export const userDemo: DemoPart<void> = {
  name: 'user',
  after: [companyDemo, retailerDemo, territoryDemo, companyRetailerDemo, crlDemo],
  present: async (tx) => (await tx.count(User, { email: { $in: PEOPLE.map((p) => p.email) } })) > 0,
  seed: (demo) => {
    const { tx } = demo;
    const company = demo.get(companyDemo);
    const retailer = demo.get(retailerDemo);
    const companyRetailer = demo.get(companyRetailerDemo);
    const [portland, seattle] = demo.get(crlDemo);
    const assignments: Partial<Record<Role, (u: User) => void>> = {
      [Role.CompanyTerritoryManager]: (u) => (u.territory = demo.get(territoryDemo).get('Pacific Northwest')!),
      [Role.CompanyRetailerManager]: (u) => u.companyRetailers.add(companyRetailer),
      [Role.CompanyLocationUser]: (u) => u.companyRetailerLocations.add(portland.crl),
      [Role.CompanySalesAssociate]: (u) => u.companyRetailerLocations.add(portland.crl, seattle.crl),
      [Role.RetailerStoreManager]: (u) => u.retailerLocations.add(seattle.retailerLocation),
    };
    demo.report.users = PEOPLE.map((p) => {
      const user = tx.create(User, {
        email: p.email,
        name: p.name,
        role: p.role,
        company: p.email.endsWith('@cascade-cycles.example') ? company : null,
        retailer: p.email.endsWith('@summit-sports.example') ? retailer : null,
        territory: null,
      });
      assignments[p.role]?.(user);
      const { plainKey } = issueApiKey(tx as EntityManager, user, 'demo');
      return { role: p.role, email: p.email, id: user.id, apiKey: plainKey };
    });
  },
};
