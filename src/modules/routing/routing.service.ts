import type { EntityManager } from '@mikro-orm/postgresql';
import countries from 'i18n-iso-countries';
import type { Context } from '../../context';
import type { Caller } from '../../auth/caller';
import { Validator } from '../../errors';
import { about, authorize } from '../../access/policy';
import { routingPolicy } from './routing.policy';
import { logger } from '../../logger';
import { flushTiny } from '../../limits';
import type { LatLng } from '../../geo/distance';
import { countryCode } from '../../geo/offline-geocoder';
import { CompanyService } from '../company/company.service';
import { toDate } from '../webhooks/webhook.service';
import { audit, changes } from '../audit/audit.service';
import { transactional } from '../../db/write';
import {
  lockRoundRobin,
  METRES_PER_MILE,
  postalKey,
  readRoutingSettings,
  recordRoundRobinTurn,
  rerouteLeadRow,
  routedStore,
  saveRoutingSettings,
  type RoutingSettingsRow,
  type RoutingTarget,
} from './routing.repository';
import {
  ALL_RULES,
  DEFAULT_RULES,
  MAX_NEAREST_MILES,
  RoutingDecision,
  RoutingRule,
  RoutingSettings,
  type RoutingAddressInput,
  type RoutingSettingsInput,
} from './routing.types';

type Sqlish = Pick<EntityManager, 'execute'>;

/** The routing a lead create asked for: the store, the rule that chose it and the distance in miles. */
export interface RoutingChoice {
  crlId: string;
  rule: RoutingRule;
  distanceMiles: number | null;
}

/** The address parts of a new lead routing reads. */
export interface LeadAddress {
  postalCode?: string | null;
  country?: string | null;
  latitude?: number | null;
  longitude?: number | null;
}

/** A company's settings; a company that never saved any has routing off. */
export async function loadRoutingSettings(em: Sqlish, companyId: string): Promise<RoutingSettings> {
  const row = await readRoutingSettings(em, companyId);
  return row ? settingsOf(row) : defaults(companyId);
}

/**
 * Routing of a lead created without an assignee (PRODUCT.md section 11), inside the create's transaction:
 * nothing when the company's routing is off or no rule matches. With round robin, a transaction-scoped
 * advisory lock on the company makes concurrent creates take turns, so equal stores alternate.
 */
export async function routeNewLead(
  tx: Sqlish,
  companyId: string,
  address: LeadAddress | null,
  territoryId: string | null,
  /** The company's settings when the caller has read them (a batch of creates reads them once). */
  settings?: RoutingSettings,
): Promise<RoutingChoice | null> {
  settings ??= await loadRoutingSettings(tx, companyId);
  if (!settings.enabled) return null;
  return route(tx, settings, targetOf(companyId, address, territoryId));
}

/**
 * The next store for a lead its store did not answer in time (docs/response-times.md), inside the
 * caller's transaction: the company's own rules, in its order, with its eligibility (receiving stores of
 * the company, delivery areas, radius, nearest distance and territory, boost, round robin), as for a new
 * lead, minus `exclude` (the stores the lead already had). The company chose reassignment in its
 * response-time settings, so the rules apply whether or not new leads are routed (`enabled`), as in a
 * dry run. The address is the lead's stored location; its territory is its creator's when a territory
 * manager of the company created it (as when it was created). Null when no store is eligible.
 */
export async function rerouteLead(tx: Sqlish, companyId: string, leadId: string, exclude: readonly string[]): Promise<RoutingChoice | null> {
  const lead = await rerouteLeadRow(tx, companyId, leadId);
  if (!lead) return null; // only a company's own leads are routed
  const settings = await loadRoutingSettings(tx, companyId);
  const address: LeadAddress = {
    postalCode: lead.postal_code,
    country: lead.country,
    latitude: lead.latitude === null ? null : Number(lead.latitude),
    longitude: lead.longitude === null ? null : Number(lead.longitude),
  };
  return route(tx, settings, { ...targetOf(companyId, address, lead.territory_id ?? null), exclude });
}

/** The key of the transaction-scoped advisory lock under which a company's round-robin turns are taken. */
export const routingLockKey = (companyId: string) => `routing:${companyId}`;

/**
 * For many creates in one transaction (a batch): the company's settings, read once, when its routing is
 * on, else null. With round robin the company's turn lock is taken now, right after the creates'
 * duplicate keys, as a single create takes it (docs/scaling.md, "Lock order of lead writes").
 */
export async function routingForMany(tx: Sqlish, companyId: string): Promise<RoutingSettings | null> {
  const settings = await loadRoutingSettings(tx, companyId);
  if (!settings.enabled) return null;
  if (settings.roundRobin) await lockRoundRobin(tx, routingLockKey(companyId));
  return settings;
}

async function route(tx: Sqlish, settings: RoutingSettings, target: RoutingTarget): Promise<RoutingChoice | null> {
  if (settings.roundRobin) await lockRoundRobin(tx, routingLockKey(target.companyId));
  const choice = await decide(tx, settings, target);
  if (choice && settings.roundRobin) await recordRoundRobinTurn(tx, choice.crlId);
  return choice;
}

async function decide(em: Sqlish, settings: RoutingSettings, target: RoutingTarget): Promise<RoutingChoice | null> {
  const row = await routedStore(em, target, settings);
  if (!row) return null;
  const distance = row.distance === null ? null : Number(row.distance);
  return { crlId: row.id, rule: row.rule as RoutingRule, distanceMiles: distance === null ? null : Math.round((distance / METRES_PER_MILE) * 100) / 100 };
}

function targetOf(companyId: string, address: LeadAddress | null, territoryId: string | null): RoutingTarget {
  const point = placed(address?.latitude, address?.longitude);
  return { companyId, postalCode: address?.postalCode ?? null, countries: countrySpellings(address?.country), point, territoryId };
}

function placed(latitude: number | null | undefined, longitude: number | null | undefined): LatLng | null {
  if (typeof latitude !== 'number' || typeof longitude !== 'number') return null;
  if (!(Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180)) return null;
  return { latitude: flushTiny(latitude), longitude: flushTiny(longitude) };
}

/** The spellings a delivery area may use for the lead's country: as written, ISO alpha-2, alpha-3, English name. */
export function countrySpellings(country: string | null | undefined): string[] {
  const text = (country ?? '').trim();
  if (!text) return [];
  const out = new Set([text.toUpperCase()]);
  const alpha2 = countryCode(text);
  if (alpha2) {
    out.add(alpha2);
    const alpha3 = countries.alpha2ToAlpha3(alpha2);
    if (alpha3) out.add(alpha3);
    for (const name of countries.getName(alpha2, 'en', { select: 'all' }) ?? []) out.add(name.toUpperCase());
  }
  return [...out];
}

function defaults(companyId: string): RoutingSettings {
  return Object.assign(new RoutingSettings(), {
    companyId,
    enabled: false,
    strategies: [...DEFAULT_RULES],
    nearestMaxDistanceMiles: null,
    nearestInTerritory: false,
    roundRobin: false,
    updatedAt: null,
  });
}

function settingsOf(row: RoutingSettingsRow): RoutingSettings {
  return Object.assign(new RoutingSettings(), {
    companyId: row.company_id,
    enabled: row.enabled,
    strategies: row.strategies as RoutingRule[],
    nearestMaxDistanceMiles: row.nearest_max_distance_miles === null ? null : Number(row.nearest_max_distance_miles),
    nearestInTerritory: row.nearest_in_territory,
    roundRobin: row.round_robin,
    updatedAt: toDate(row.updated_at),
  });
}

const RULE_REASON: Record<RoutingRule, string> = {
  [RoutingRule.DeliveryArea]: "the store's delivery areas list the postal code",
  [RoutingRule.DeliveryRadius]: "the nearest store whose delivery radius covers the address",
  [RoutingRule.Nearest]: 'the nearest receiving store within the maximum distance',
};

/**
 * Routing settings and the dry run (GraphQL): the platform operator for any company, a company admin for
 * its own. A company the caller does not see is 404; one it sees without being its admin is 403.
 */
export class RoutingService {
  constructor(private readonly ctx: Context) {}

  private get caller(): Caller {
    return this.ctx.caller!;
  }

  async settings(companyId: string | null | undefined): Promise<RoutingSettings> {
    const id = await this.administered(companyId);
    return loadRoutingSettings(this.ctx.em, id);
  }

  async update(companyId: string | null | undefined, input: RoutingSettingsInput): Promise<RoutingSettings> {
    const id = await this.administered(companyId);
    const current = await loadRoutingSettings(this.ctx.em, id);
    const v = new Validator();
    const next = { ...current };
    if (input.enabled !== undefined && input.enabled !== null) next.enabled = input.enabled;
    if (input.nearestInTerritory !== undefined && input.nearestInTerritory !== null) next.nearestInTerritory = input.nearestInTerritory;
    if (input.roundRobin !== undefined && input.roundRobin !== null) next.roundRobin = input.roundRobin;
    if (input.strategies !== undefined && input.strategies !== null) {
      if (!input.strategies.length) v.add('strategies', 'blank');
      else if (new Set(input.strategies).size !== input.strategies.length) v.add('strategies', 'invalid', 'lists a rule twice');
      else next.strategies = input.strategies.filter((r) => ALL_RULES.includes(r));
    }
    if (input.nearestMaxDistanceMiles !== undefined) {
      const miles = input.nearestMaxDistanceMiles === null ? null : flushTiny(input.nearestMaxDistanceMiles);
      if (miles !== null && !(Number.isFinite(miles) && miles > 0 && miles <= MAX_NEAREST_MILES)) {
        v.add('nearest_max_distance_miles', 'invalid', `must be greater than 0 and at most ${MAX_NEAREST_MILES}`);
      } else next.nearestMaxDistanceMiles = miles;
    }
    if (v.ok && next.strategies.includes(RoutingRule.Nearest) && next.nearestMaxDistanceMiles === null) {
      v.add('nearest_max_distance_miles', 'blank', "can't be blank when the nearest rule is on");
    }
    v.throwIfAny();
    return transactional(this.ctx.em.fork() as EntityManager, async (tx) => {
      const saved = settingsOf(await saveRoutingSettings(tx, id, next));
      const changed = changes(current, saved, ['enabled', 'strategies', 'nearestMaxDistanceMiles', 'nearestInTerritory', 'roundRobin']);
      if (Object.keys(changed).length) await audit.record(tx, this.caller, 'settings.routing_changed', { type: 'company', id, companyId: id }, changed);
      return saved;
    });
  }

  /** Where a lead at `address` would go under the company's current rules (whether routing is on or not). */
  async dryRun(companyId: string | null | undefined, address: RoutingAddressInput, territoryId: string | null | undefined): Promise<RoutingDecision> {
    const id = await this.administered(companyId);
    const settings = await loadRoutingSettings(this.ctx.em, id);
    let point = placed(address.latitude, address.longitude);
    if (!point && [address.streetLineOne, address.postalCode, address.city, address.province, address.country].some((x) => x && x.trim())) {
      try {
        point = await this.ctx.geocoder.geocode(address);
      } catch (err) {
        logger.warn({ err }, 'geocoding failed in a routing dry run');
      }
    }
    const choice = await decide(this.ctx.em, settings, targetOf(id, { ...address, ...point }, territoryId ?? null));
    const decision = Object.assign(new RoutingDecision(), {
      routingEnabled: settings.enabled,
      assigneeId: choice?.crlId ?? null,
      rule: choice?.rule ?? null,
      distanceMiles: choice?.distanceMiles ?? null,
      latitude: point?.latitude ?? null,
      longitude: point?.longitude ?? null,
    });
    decision.reason = choice
      ? `${choice.rule}: ${RULE_REASON[choice.rule]}${choice.distanceMiles !== null ? ` (${choice.distanceMiles} mi away)` : ''}.`
      : `No rule matched (${settings.strategies.join(', ')})${point ? '' : '; the address could not be placed, so only delivery_area could apply'}${
          postalKey(address.postalCode) ? '' : '; no postal code for delivery_area'
        }.`;
    if (!settings.enabled) decision.reason += ' Routing is off for this company: leads are not routed until it is enabled.';
    return decision;
  }

  private async administered(companyId: string | null | undefined): Promise<string> {
    const id = companyId ?? this.caller.companyId;
    if (!id) {
      const v = new Validator();
      v.add('company_id', 'blank');
      v.throwIfAny();
    }
    await new CompanyService(this.ctx).get(id!);
    authorize(this.caller, 'configure', about(routingPolicy, { companyId: id! }));
    return id!;
  }
}
