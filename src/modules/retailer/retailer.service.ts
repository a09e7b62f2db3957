import type { Context } from '../../context';
import { listConnection, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import type { ListArgs, Page } from '../../graphql/common';
import { destroyHalted, Validator } from '../../errors';
import { flushDestroy, transactional } from '../../db/write';
import { Assign } from '../../db/assign';
import { authorize } from '../../access/policy';
import { findInScope, listPage } from '../../search/list';
import { CompanyRetailer } from '../company-retailer/company-retailer.entity';
import { Retailer } from './retailer.entity';
import type { RetailerInput } from './retailer.input';
import { retailerPolicy } from './retailer.policy';
import { retailerSearch } from './retailer.search';
import { retailerScope } from './retailer.policy';

/** Network management of retailers (GraphQL only). */
export class RetailerService {
  constructor(private readonly ctx: Context) {}

  private get caller() {
    return this.ctx.caller!;
  }

  list(args: ListArgs): Promise<Page<Retailer>> {
    return listPage(this.ctx, retailerSearch, Retailer, retailerScope(this.caller), args);
  }

  /** The same list by Relay cursors (keyset). */
  connection(filter: ConnectionFilterArgs, paging: ConnectionArgs): Promise<Connection<Retailer>> {
    return listConnection(this.ctx, retailerSearch, Retailer, retailerScope(this.caller), filter, paging);
  }

  get(id: string): Promise<Retailer> {
    return findInScope(this.ctx, retailerSearch, Retailer, retailerScope(this.caller), id, 'Retailer');
  }

  async create(input: RetailerInput): Promise<Retailer> {
    authorize(this.caller, 'create', retailerPolicy);
    const retailer = new Retailer();
    this.assign(retailer, input, true);
    return transactional(this.ctx.em, async (em) => {
      em.persist(retailer);
      await em.flush();
      return retailer;
    });
  }

  async update(id: string, input: RetailerInput): Promise<Retailer> {
    const retailer = await this.get(id);
    authorize(this.caller, 'update', retailerPolicy);
    this.assign(retailer, input, false);
    return transactional(this.ctx.em, async (em) => {
      await em.flush();
      return retailer;
    });
  }

  /** Halted while the retailer works with companies: its company retailers go first. */
  async delete(id: string): Promise<void> {
    const retailer = await this.get(id);
    authorize(this.caller, 'destroy', retailerPolicy);
    await transactional(this.ctx.em, async (em) => {
      if (await em.count(CompanyRetailer, { retailer: retailer.id })) throw destroyHalted();
      em.remove(retailer);
      await flushDestroy(em);
    });
  }

  private assign(retailer: Retailer, input: RetailerInput, creating: boolean): void {
    const v = new Validator();
    if (creating && input.name === undefined) v.add('name', 'blank');
    new Assign(retailer, v).text('name', input.name, 'name', true);
    v.throwIfAny();
  }
}
