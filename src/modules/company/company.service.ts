import type { Context } from '../../context';
import { listConnection, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import type { ListArgs, Page } from '../../graphql/common';
import { destroyHalted, Validator } from '../../errors';
import { flushDestroy, transactional } from '../../db/write';
import { Assign } from '../../db/assign';
import { authorize } from '../../access/policy';
import { findInScope, listPage } from '../../search/list';
import { CompanyRetailer } from '../company-retailer/company-retailer.entity';
import { Company } from './company.entity';
import type { CompanyInput } from './company.input';
import { companyPolicy } from './company.policy';
import { companySearch } from './company.search';
import { companyScope } from './company.policy';

/** Network management of companies (GraphQL only). */
export class CompanyService {
  constructor(private readonly ctx: Context) {}

  private get caller() {
    return this.ctx.caller!;
  }

  list(args: ListArgs): Promise<Page<Company>> {
    return listPage(this.ctx, companySearch, Company, companyScope(this.caller), args);
  }

  /** The same list by Relay cursors (keyset). */
  connection(filter: ConnectionFilterArgs, paging: ConnectionArgs): Promise<Connection<Company>> {
    return listConnection(this.ctx, companySearch, Company, companyScope(this.caller), filter, paging);
  }

  get(id: string): Promise<Company> {
    return findInScope(this.ctx, companySearch, Company, companyScope(this.caller), id, 'Company');
  }

  async create(input: CompanyInput): Promise<Company> {
    authorize(this.caller, 'create', companyPolicy);
    const company = new Company();
    this.assign(company, input, true);
    return transactional(this.ctx.em, async (em) => {
      em.persist(company);
      await em.flush();
      return company;
    });
  }

  async update(id: string, input: CompanyInput): Promise<Company> {
    const company = await this.get(id);
    authorize(this.caller, 'update', companyPolicy);
    this.assign(company, input, false);
    return transactional(this.ctx.em, async (em) => {
      await em.flush();
      return company;
    });
  }

  /** Halted while the company works with retailers: its network goes first. */
  async delete(id: string): Promise<void> {
    const company = await this.get(id);
    authorize(this.caller, 'destroy', companyPolicy);
    await transactional(this.ctx.em, async (em) => {
      if (await em.count(CompanyRetailer, { company: company.id })) throw destroyHalted();
      em.remove(company);
      await flushDestroy(em);
    });
  }

  private assign(company: Company, input: CompanyInput, creating: boolean): void {
    const v = new Validator();
    if (creating && input.name === undefined) v.add('name', 'blank');
    new Assign(company, v).text('name', input.name, 'name', true);
    v.throwIfAny();
  }
}
