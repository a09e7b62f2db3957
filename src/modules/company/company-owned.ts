import { FlushMode } from '@mikro-orm/core';
import { listConnection, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import type { EntityClass, EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import type { Caller } from '../../auth/caller';
import type { ListArgs, Page } from '../../graphql/common';
import { Validator } from '../../errors';
import { flushDestroy, transactional } from '../../db/write';
import { Assign } from '../../db/assign';
import { about, authorize, type Action, type ResourcePolicy } from '../../access/policy';
import { findInScope, listPage } from '../../search/list';
import type { SearchDocument, Where } from '../../search/types';
import type { CompanyOwnedFacts } from './company-owned.policy';
import { Company } from './company.entity';

/** The search document of a company-owned named table. */
export function companyOwnedSearch(name: string, table: string): SearchDocument {
  return {
    name,
    from: `${table} o`,
    alias: 'o',
    fields: {
      id: { sql: 'o.id', type: 'uuid' },
      name: { sql: 'o.name', type: 'string', text: true },
      company_id: { sql: 'o.company_id', type: 'uuid' },
      created_at: { sql: 'o.created_at', type: 'date' },
      updated_at: { sql: 'o.updated_at', type: 'date' },
    },
  };
}

export interface CompanyOwned {
  id: string;
  company: Company;
  name: string;
}

export interface CompanyOwnedInput {
  companyId?: string | null;
  name?: string | null;
}

/**
 * The rules shared by a company's named records (unique name per company): `extra` assigns and
 * validates the attributes a kind adds.
 */
export class CompanyOwnedService<T extends CompanyOwned, I extends CompanyOwnedInput> {
  constructor(
    private readonly ctx: Context,
    private readonly kind: {
      entity: EntityClass<T> & (new () => T);
      typeName: string;
      search: SearchDocument;
      policy: ResourcePolicy<Action, CompanyOwnedFacts>;
      uniqueName: string;
      extra?: (record: T, input: I, v: Validator) => void;
    },
  ) {}

  private get caller() {
    return this.ctx.caller!;
  }

  list(args: ListArgs): Promise<Page<T>> {
    return listPage(this.ctx, this.kind.search, this.kind.entity, this.kind.policy.scope!(this.caller), args);
  }

  /** The same list by Relay cursors (keyset). */
  connection(filter: ConnectionFilterArgs, paging: ConnectionArgs): Promise<Connection<T>> {
    return listConnection(this.ctx, this.kind.search, this.kind.entity, this.kind.policy.scope!(this.caller), filter, paging);
  }

  get(id: string): Promise<T> {
    return findInScope(this.ctx, this.kind.search, this.kind.entity, this.kind.policy.scope!(this.caller), id, this.kind.typeName);
  }

  /** The operator names the company; a company admin writes for its own (another company is 403). */
  async create(input: I): Promise<T> {
    const companyId = input.companyId ?? this.caller.companyId;
    authorize(this.caller, 'create', about(this.kind.policy, { companyId }));
    return this.write(async (em, v) => {
      const company = companyId ? await em.findOne(Company, companyId) : null;
      if (!company) v.add('company_id', companyId ? 'invalid' : 'blank');
      if (input.name === undefined) v.add('name', 'blank');
      const record = new this.kind.entity();
      if (company) record.company = company;
      this.assign(record, input, v);
      em.persist(record);
      return record;
    });
  }

  async update(id: string, input: I): Promise<T> {
    const record = await this.get(id);
    authorize(this.caller, 'update', this.kind.policy);
    return this.write(async (_em, v) => {
      if (input.companyId !== undefined && input.companyId !== record.company.id) v.add('company_id', 'invalid', 'cannot change');
      this.assign(record, input, v);
      return record;
    });
  }

  async delete(id: string): Promise<void> {
    const record = await this.get(id);
    authorize(this.caller, 'destroy', this.kind.policy);
    await transactional(this.ctx.em, async (em) => {
      em.remove(record);
      await flushDestroy(em);
    });
  }

  private assign(record: T, input: I, v: Validator): void {
    new Assign(record as CompanyOwned, v).text('name', input.name, 'name', true);
    this.kind.extra?.(record, input, v);
  }

  private write(work: (em: EntityManager, v: Validator) => Promise<T>): Promise<T> {
    return transactional(
      this.ctx.em,
      async (em) => {
        em.setFlushMode(FlushMode.COMMIT);
        const v = new Validator();
        const record = await work(em, v);
        if (v.ok && record.company && record.name) {
          const clash = await em.count(this.kind.entity, { company: record.company.id, name: record.name, id: { $ne: record.id } } as any);
          if (clash) v.add('name', 'taken');
        }
        v.throwIfAny();
        await em.flush();
        return record;
      },
      { [this.kind.uniqueName]: 'name' },
    );
  }
}
