import type { EntityManager } from '@mikro-orm/postgresql';
import { listConnection, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import type { ListArgs, Page } from '../../graphql/common';
import { AppError, invalid, notFound, validationDetail, Validator } from '../../errors';
import { transactional } from '../../db/write';
import { findInScope, isUuid, listPage } from '../../search/list';
import { generatePlainKey, hashKey, keyPrefix } from '../../auth/api-keys';
import { Company } from '../company/company.entity';
import { Retailer } from '../retailer/retailer.entity';
import { Territory } from '../territory/territory.entity';
import { CompanyRetailer } from '../company-retailer/company-retailer.entity';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { RetailerLocation } from '../retailer-location/retailer-location.entity';
import { ApiKey } from './api-key.entity';
import type { GeneratedApiKey } from './api-key.output';
import { User } from './user.entity';
import type { CreateUserInput, UpdateUserInput } from './user.input';
import { organisationOf, Role } from './role';
import { about, authorize } from '../../access/policy';
import { userSearch, type UserManager } from './user.search';
import { assignmentRows } from './user.repository';
import { isOperatorRole, userPolicy } from './user.policy';
import { audit, changes } from '../audit/audit.service';

const UNIQUE = { users_email_unique: 'email' };
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_LENGTH = 255;
const tooLong = `is too long (maximum is ${MAX_LENGTH} characters)`;

/** The command line acts with the platform operator's reach. */
export const CLI_OPERATOR: UserManager = { role: Role.PlatformOperator, companyId: null, retailerId: null };

type AssignmentKey = 'territoryId' | 'companyRetailerIds' | 'companyRetailerLocationIds' | 'retailerLocationIds';
type AssignmentInput = Partial<Record<AssignmentKey, string | string[] | null>>;

const ASSIGNMENT_FIELD: Record<AssignmentKey, string> = {
  territoryId: 'territory_id',
  companyRetailerIds: 'company_retailer_ids',
  companyRetailerLocationIds: 'company_retailer_location_ids',
  retailerLocationIds: 'retailer_location_ids',
};

/** PRODUCT.md section 2: the one scope assignment each role uses. */
export const ROLE_ASSIGNMENT: Record<Role, AssignmentKey | null> = {
  [Role.CompanyAdmin]: null,
  [Role.CompanyTerritoryManager]: 'territoryId',
  [Role.CompanyRetailerManager]: 'companyRetailerIds',
  [Role.CompanyLocationUser]: 'companyRetailerLocationIds',
  [Role.CompanySalesAssociate]: 'companyRetailerLocationIds',
  [Role.RetailerAdmin]: null,
  [Role.RetailerStoreManager]: 'retailerLocationIds',
  [Role.PlatformOperator]: null,
};

export interface UserAssignments {
  companyRetailerIds: string[];
  companyRetailerLocationIds: string[];
  retailerLocationIds: string[];
}

/** The set-valued scope assignments of many users, in one statement. */
export async function loadAssignments(em: EntityManager, userIds: readonly string[]): Promise<UserAssignments[]> {
  const ids = userIds.filter(isUuid);
  const rows = await assignmentRows(em, ids);
  const byUser = new Map<string, UserAssignments>(
    ids.map((id) => [id, { companyRetailerIds: [], companyRetailerLocationIds: [], retailerLocationIds: [] }]),
  );
  const field = { cr: 'companyRetailerIds', crl: 'companyRetailerLocationIds', rl: 'retailerLocationIds' } as const;
  for (const row of rows) byUser.get(row.user_id)?.[field[row.kind]].push(row.id);
  return userIds.map((id) => byUser.get(id) ?? { companyRetailerIds: [], companyRetailerLocationIds: [], retailerLocationIds: [] });
}

const SCOPE_FIELDS = ['territory_id', 'company_retailer_ids', 'company_retailer_location_ids', 'retailer_location_ids'] as const;

/** A user's scope assignments as the audit log records them (ids, sorted). */
function scopeOf(user: User): Record<(typeof SCOPE_FIELDS)[number], string | string[] | null> {
  const ids = (items: Array<{ id: string }>) => items.map((i) => i.id).sort();
  return {
    territory_id: user.territory?.id ?? null,
    company_retailer_ids: ids(user.companyRetailers.isInitialized() ? user.companyRetailers.getItems() : []),
    company_retailer_location_ids: ids(user.companyRetailerLocations.isInitialized() ? user.companyRetailerLocations.getItems() : []),
    retailer_location_ids: ids(user.retailerLocations.isInitialized() ? user.retailerLocations.getItems() : []),
  };
}

/** A new API key for `user`, added to `em` (flush to store it). Only its SHA-256 is kept. */
export function issueApiKey(em: EntityManager, user: User, label: string | null = null): GeneratedApiKey {
  const plainKey = generatePlainKey();
  const apiKey = em.create(ApiKey, { user, keyHash: hashKey(plainKey), prefix: keyPrefix(plainKey), label });
  return { apiKey, plainKey };
}

/**
 * Users and their API keys. The platform operator manages every user, a company admin the users of its
 * company, a retailer admin those of its retailer; anyone else is refused (403). A user outside the
 * manager's reach is 404, and so are its keys.
 */
export class UserService {
  constructor(
    private readonly ctx: Context,
    private readonly manager: UserManager,
  ) {
    authorize(manager, 'manage', userPolicy);
  }

  list(args: ListArgs): Promise<Page<User>> {
    return listPage(this.ctx, userSearch, User, userPolicy.scope(this.manager), args);
  }

  /** The same list by Relay cursors (keyset). */
  connection(filter: ConnectionFilterArgs, paging: ConnectionArgs): Promise<Connection<User>> {
    return listConnection(this.ctx, userSearch, User, userPolicy.scope(this.manager), filter, paging);
  }

  get(id: string): Promise<User> {
    return findInScope(this.ctx, userSearch, User, userPolicy.scope(this.manager), id, 'User');
  }

  /** A user by id or (case-insensitive) email, within reach. */
  async find(idOrEmail: string): Promise<User> {
    if (isUuid(idOrEmail as unknown)) return this.get(idOrEmail);
    const email = idOrEmail.trim().toLowerCase();
    const user = await this.ctx.em.findOne(User, { email });
    if (!user) throw new AppError('NOT_FOUND', `Couldn't find User with 'email'=${email}`);
    return this.get(user.id).catch(() => {
      throw new AppError('NOT_FOUND', `Couldn't find User with 'email'=${email}`);
    });
  }

  /** The set-valued scope assignments of each user, in order. */
  assignments(users: User[]): Promise<UserAssignments[]> {
    return loadAssignments(this.ctx.em, users.map((u) => u.id));
  }

  async create(input: CreateUserInput): Promise<User> {
    const v = new Validator();
    const email = this.email(input.email, v);
    const name = this.name(input.name, v);
    const role = this.role(input.role, v);
    if (!role) return v.throwIfAny() as never;
    const { companyId, retailerId } = this.membership(role, input, v);
    return this.write(async (em) => {
      const company = companyId ? await em.findOne(Company, { id: companyId }) : null;
      if (companyId && !company) v.add('company_id', 'invalid', 'does not exist');
      const retailer = retailerId ? await em.findOne(Retailer, { id: retailerId }) : null;
      if (retailerId && !retailer) v.add('retailer_id', 'invalid', 'does not exist');
      const user = em.create(User, { email: email ?? '', name, role, company, retailer, territory: null });
      await this.assign(em, user, role, input, v);
      v.throwIfAny();
      await em.flush();
      await audit.record(em, this.ctx.caller, 'user.created', { type: 'user', id: user.id, companyId: user.company?.id ?? null }, {
        role,
        company_id: user.company?.id ?? null,
        retailer_id: user.retailer?.id ?? null,
        ...scopeOf(user),
      });
      return user;
    });
  }

  async update(id: string, input: UpdateUserInput): Promise<User> {
    const found = await this.get(id);
    const v = new Validator();
    const email = input.email !== undefined ? this.email(input.email, v) : found.email;
    const name = input.name !== undefined ? this.name(input.name, v) : found.name;
    const role = input.role !== undefined ? this.role(input.role, v) : found.role;
    if (role && !this.fits(role, found)) v.add('role', 'invalid', `does not fit the user's ${found.company ? 'company' : found.retailer ? 'retailer' : 'membership'}`);
    if (!role || !v.ok) return v.throwIfAny() as never;
    return this.write(async (em) => {
      const user = await em.findOneOrFail(User, found.id, { populate: ['companyRetailers', 'companyRetailerLocations', 'retailerLocations'] });
      const before = { role: user.role, ...scopeOf(user) };
      const personal = (['email', 'name'] as const).filter((k) => (k === 'email' ? email! : name) !== user[k]);
      user.email = email!;
      user.name = name;
      user.role = role;
      await this.assign(em, user, role, input, v);
      v.throwIfAny();
      await em.flush();
      // Role and scope changes with their values; a changed e-mail or name by its field's name only (personal data).
      const changed = changes(before, { role: user.role, ...scopeOf(user) }, ['role', ...SCOPE_FIELDS]);
      const target = { type: 'user', id: user.id, companyId: user.company?.id ?? null };
      if (Object.keys(changed).length) await audit.record(em, this.ctx.caller, 'user.role_changed', target, { ...changed, fields: [...Object.keys(changed), ...personal] });
      else if (personal.length) await audit.record(em, this.ctx.caller, 'user.updated', target, { fields: personal });
      return user;
    });
  }

  /** The user with this email, created as a platform operator when missing (`leadnet bootstrap`). */
  async ensurePlatformOperator(email: string, name?: string | null): Promise<{ user: User; created: boolean }> {
    authorize(this.manager, 'bootstrap', userPolicy);
    const existing = await this.ctx.em.findOne(User, { email: email.trim().toLowerCase() });
    if (existing) {
      if (!isOperatorRole(existing.role)) {
        throw invalid([validationDetail('email', 'taken', `belongs to a ${existing.role} user, not a platform operator`)]);
      }
      return { user: existing, created: false };
    }
    return { user: await this.create({ email, name, role: Role.PlatformOperator }), created: true };
  }

  /** Every key of a user in reach, newest first (revoked ones included). */
  async apiKeys(userId: string): Promise<ApiKey[]> {
    const user = await this.get(userId);
    return this.ctx.em.find(ApiKey, { user }, { orderBy: { createdAt: 'desc', id: 'asc' } });
  }

  async generateApiKey(userId: string, label?: string | null): Promise<GeneratedApiKey> {
    const user = await this.get(userId);
    const v = new Validator();
    const text = typeof label === 'string' ? label.trim() : '';
    if (text.length > MAX_LENGTH) v.add('label', 'too_long', tooLong);
    v.throwIfAny();
    return this.write(async (em) => {
      const generated = issueApiKey(em, em.getReference(User, user.id), text || null);
      await em.flush();
      await audit.record(em, this.ctx.caller, 'api_key.created', { type: 'api_key', id: generated.apiKey.id, companyId: user.company?.id ?? null }, { user_id: user.id });
      return generated;
    });
  }

  /** Revokes a key at once (its next request is 401); revoking a revoked key changes nothing. */
  async revokeApiKey(id: string): Promise<ApiKey> {
    const key = isUuid(id) ? await this.ctx.em.findOne(ApiKey, { id }) : null;
    if (!key) throw notFound('ApiKey', id);
    await this.get(key.user.id).catch(() => {
      throw notFound('ApiKey', id);
    });
    if (key.revokedAt) return key;
    return this.write(async (em) => {
      const revoking = await em.findOneOrFail(ApiKey, key.id, { populate: ['user'] });
      revoking.revokedAt = new Date();
      await em.flush();
      await audit.record(em, this.ctx.caller, 'api_key.revoked', { type: 'api_key', id: revoking.id, companyId: revoking.user.company?.id ?? null }, { user_id: revoking.user.id });
      return revoking;
    });
  }

  /**
   * Runs a write in one transaction on a fork of the request's EntityManager, so that a write refused
   * half-way (422) leaves nothing behind for a later flush of the same request. Kept callers are
   * forgotten once it ends (a revoked key is 401 on its next request).
   */
  private async write<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await transactional(this.ctx.em.fork() as EntityManager, work, UNIQUE);
    } finally {
      // This process's next request reads its key again (others hear the database's notification).
      this.ctx.callers?.invalidate();
    }
  }

  private email(value: string | null | undefined, v: Validator): string | null {
    const email = typeof value === 'string' ? value.trim().toLowerCase() : '';
    if (!email) v.add('email', 'blank');
    else if (email.length > MAX_LENGTH) v.add('email', 'too_long', tooLong);
    else if (!EMAIL.test(email)) v.add('email', 'invalid');
    else return email;
    return null;
  }

  private name(value: string | null | undefined, v: Validator): string | null {
    const name = typeof value === 'string' ? value.trim() : '';
    if (name.length > MAX_LENGTH) v.add('name', 'too_long', tooLong);
    return name || null;
  }

  private role(value: string | null | undefined, v: Validator): Role | null {
    if (value === null || value === undefined || value === '') v.add('role', 'blank');
    else if (!(Object.values(Role) as string[]).includes(value)) v.add('role', 'inclusion');
    else return value as Role;
    return null;
  }

  /** Whether a role suits the user's membership (a company, a retailer, or neither). */
  private fits(role: Role, user: User): boolean {
    const organisation = organisationOf(role);
    if (organisation === 'company') return !!user.company;
    if (organisation === 'retailer') return !!user.retailer;
    return !user.company && !user.retailer;
  }

  /**
   * The company or retailer a new user joins. An admin creates users of its own organisation only
   * (anything else is 403); the platform operator names one for every role but its own.
   */
  private membership(role: Role, input: CreateUserInput, v: Validator): { companyId: string | null; retailerId: string | null } {
    const m = this.manager;
    authorize(m, 'grant', about(userPolicy, { role, companyId: input.companyId, retailerId: input.retailerId }));
    // An admin's own organisation by default (the operator belongs to none: it names one).
    const companyId = input.companyId || m.companyId;
    const retailerId = input.retailerId || m.retailerId;
    const organisation = organisationOf(role);
    const check = (field: string, id: string | null, wanted: boolean, kind: string) => {
      if (wanted && !id) v.add(field, 'blank');
      else if (!wanted && id) v.add(field, 'invalid', `must be empty for the role ${role}${kind}`);
      else if (id && !isUuid(id)) v.add(field, 'invalid');
      else return id;
      return null;
    };
    return {
      companyId: check('company_id', companyId, organisation === 'company', organisation === 'retailer' ? ' (a retailer role)' : ''),
      retailerId: check('retailer_id', retailerId, organisation === 'retailer', organisation === 'company' ? ' (a company role)' : ''),
    };
  }

  /**
   * Sets the scope assignment the role uses from `input` (each id must belong to the user's company or
   * retailer) and clears the others. Giving an assignment the role does not use is 422.
   */
  private async assign(em: EntityManager, user: User, role: Role, input: AssignmentInput, v: Validator): Promise<void> {
    const used = ROLE_ASSIGNMENT[role];
    for (const key of Object.keys(ASSIGNMENT_FIELD) as AssignmentKey[]) {
      const value = input[key];
      const given = Array.isArray(value) ? value.length > 0 : value !== null && value !== undefined;
      if (key !== used && given) v.add(ASSIGNMENT_FIELD[key], 'invalid', `does not apply to the role ${role}`);
    }
    if (used !== 'territoryId') user.territory = null;
    if (used !== 'companyRetailerIds') user.companyRetailers.removeAll();
    if (used !== 'companyRetailerLocationIds') user.companyRetailerLocations.removeAll();
    if (used !== 'retailerLocationIds') user.retailerLocations.removeAll();

    const companyId = user.company?.id;
    const retailerId = user.retailer?.id;
    switch (used) {
      case 'territoryId': {
        const id = input.territoryId as string | null | undefined;
        if (id !== undefined) {
          user.territory = null;
          if (id) {
            const territory = isUuid(id) && companyId ? await em.findOne(Territory, { id, company: companyId }) : null;
            if (territory) user.territory = territory;
            else v.add('territory_id', 'invalid', "is not a territory of the user's company");
          }
        }
        if (!user.territory && !v.details.some((d) => d.field === 'territory_id')) v.add('territory_id', 'blank');
        break;
      }
      case 'companyRetailerIds': {
        const found = await this.owned(em, CompanyRetailer, input.companyRetailerIds, { company: companyId }, "must be company retailers of the user's company", 'company_retailer_ids', v);
        if (found) user.companyRetailers.set(found);
        break;
      }
      case 'companyRetailerLocationIds': {
        const found = await this.owned(em, CompanyRetailerLocation, input.companyRetailerLocationIds, { company: companyId }, "must be company retailer locations of the user's company", 'company_retailer_location_ids', v);
        if (found) user.companyRetailerLocations.set(found);
        break;
      }
      case 'retailerLocationIds': {
        const found = await this.owned(em, RetailerLocation, input.retailerLocationIds, { retailer: retailerId }, "must be retailer locations of the user's retailer", 'retailer_location_ids', v);
        if (found) user.retailerLocations.set(found);
        break;
      }
    }
  }

  /** The records with these ids under `owner`, or null (and a 422 detail) when any id is not one. */
  private async owned<T extends { id: string }>(
    em: EntityManager,
    entity: new () => T,
    value: string | string[] | null | undefined,
    owner: Record<string, string | undefined>,
    message: string,
    field: string,
    v: Validator,
  ): Promise<T[] | null> {
    if (value === undefined) return null;
    const ids = [...new Set(Array.isArray(value) ? value : value === null ? [] : [value])];
    if (!ids.length) return [];
    const ownerId = Object.values(owner)[0];
    const found = ids.every(isUuid) && ownerId ? await em.find(entity, { id: { $in: ids }, ...owner } as any) : [];
    if (found.length !== ids.length) {
      v.add(field, 'invalid', message);
      return null;
    }
    return found;
  }
}
