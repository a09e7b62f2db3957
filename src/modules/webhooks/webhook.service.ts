import { refusedHost } from './webhook.address';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import type { Caller } from '../../auth/caller';
import { notFound, Validator } from '../../errors';
import { isUuid } from '../../search/list';
import { webhookOwner } from './webhook.policy';
import { generateSecret, sealSecret } from './webhook.signature';
import {
  deliveryAttempts,
  enabledEndpointCount,
  endpointDeliveries,
  insertEndpoint,
  ownerDelivery,
  ownerEndpoint,
  ownerEndpoints,
  redeliverNow,
  updateEndpoint,
  updateEndpointSecret,
  type DeliveryRow,
  type EndpointRow,
  type WebhookOwner,
} from './webhook.repository';
import {
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
  WebhookEndpointSecret,
  WebhookEvent,
  type WebhookEndpointInput,
} from './webhook.types';

/** A timestamp of a raw row (PostgreSQL's text form or a Date) as a Date. */
export function toDate(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v;
  return new Date(String(v).replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
}

type Owner = WebhookOwner;

const MAX_URL = 2048;
const MAX_DESCRIPTION = 1000;
/** Enabled endpoints an organisation may have (each holds its own requests in flight in the worker). */
export const MAX_ENDPOINTS = 20;
export const MAX_DELIVERIES_PAGE = 200;

/**
 * An http(s) URL without spaces, at most 2048 characters, and unless `allowPrivate` not naming this
 * machine or a private, loopback or link-local address (`refusedHost`; a host name is checked again
 * at each delivery, against what it resolves to then); anything else is 422 on `url`.
 */
export function checkUrl(url: string | null | undefined, v: Validator, allowPrivate: boolean): string | undefined {
  if (url === undefined || url === null || !url.trim()) {
    v.add('url', 'blank');
    return undefined;
  }
  let parsed: URL | null = null;
  try {
    parsed = new URL(url.trim());
  } catch {
    parsed = null;
  }
  if (url.length > MAX_URL) {
    v.add('url', 'too_long', `is too long (maximum is ${MAX_URL} characters)`);
    return undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || /\s/.test(url.trim())) {
    v.add('url', 'invalid', 'must be an http or https URL');
    return undefined;
  }
  const refused = allowPrivate ? null : refusedHost(parsed);
  if (refused) {
    v.add('url', 'invalid', refused);
    return undefined;
  }
  return parsed.toString();
}

/**
 * Webhook endpoints (GraphQL): the admins of a company or retailer manage their organisation's endpoints
 * and read their delivery log; an endpoint of another organisation is 404, any other role 403.
 */
export class WebhookService {
  constructor(private readonly ctx: Context) {}

  private get caller(): Caller {
    return this.ctx.caller!;
  }

  private get em(): EntityManager {
    return this.ctx.em;
  }

  /** The caller's organisation, whose endpoints it manages (`webhookPolicy`); 403 for any other role. */
  private owner(): Owner {
    return webhookOwner(this.caller);
  }

  async list(): Promise<WebhookEndpoint[]> {
    const owner = this.owner();
    return (await ownerEndpoints(this.em, owner)).map(endpointOf);
  }

  async get(id: string): Promise<WebhookEndpoint> {
    const owner = this.owner();
    const row = isUuid(id) ? await ownerEndpoint(this.em, owner, id) : undefined;
    if (!row) throw notFound('WebhookEndpoint', id);
    return endpointOf(row);
  }

  async create(input: WebhookEndpointInput): Promise<WebhookEndpointSecret> {
    const owner = this.owner();
    const v = new Validator();
    const url = checkUrl(input.url, v, this.ctx.config.webhooks.allowPrivateUrls);
    const events = checkEvents(input.events, v, true);
    checkDescription(input.description, v);
    if (input.enabled === false) v.add('enabled', 'invalid', 'a new endpoint starts enabled');
    await this.checkRoom(owner, v);
    v.throwIfAny();
    const secret = generateSecret();
    const row = await insertEndpoint(this.em, owner, {
      url: url!,
      description: input.description ?? null,
      events: events!,
      sealedSecret: sealSecret(secret, this.ctx.config.webhooks.secretKey),
      createdById: this.caller.userId,
    });
    return Object.assign(new WebhookEndpointSecret(), { endpoint: endpointOf(row), secret });
  }

  async update(id: string, input: WebhookEndpointInput): Promise<WebhookEndpoint> {
    const current = await this.get(id);
    const v = new Validator();
    const url = input.url !== undefined ? checkUrl(input.url, v, this.ctx.config.webhooks.allowPrivateUrls) : current.url;
    const events = input.events !== undefined ? checkEvents(input.events, v, true) : current.events;
    checkDescription(input.description, v);
    const enable = input.enabled === true && !current.enabled;
    if (enable) await this.checkRoom(this.owner(), v);
    v.throwIfAny();
    const disable = input.enabled === false && current.enabled;
    const row = await updateEndpoint(this.em, id, {
      url: url!,
      events: events!,
      description: input.description !== undefined ? input.description : current.description,
      enable,
      disable,
    });
    return endpointOf(row);
  }

  /** Room for one more enabled endpoint of the organisation (at most `MAX_ENDPOINTS`). */
  private async checkRoom(owner: Owner, v: Validator): Promise<void> {
    if ((await enabledEndpointCount(this.em, owner)) >= MAX_ENDPOINTS) v.add('base', 'invalid', `an organisation has at most ${MAX_ENDPOINTS} enabled webhook endpoints; disable or reuse one`);
  }

  disable(id: string): Promise<WebhookEndpoint> {
    return this.update(id, { enabled: false });
  }

  async rotateSecret(id: string): Promise<WebhookEndpointSecret> {
    await this.get(id);
    const secret = generateSecret();
    const row = await updateEndpointSecret(this.em, id, sealSecret(secret, this.ctx.config.webhooks.secretKey));
    return Object.assign(new WebhookEndpointSecret(), { endpoint: endpointOf(row), secret });
  }

  /** The endpoint's deliveries, newest first, optionally of one status. */
  async deliveries(endpointId: string, status: string | null | undefined, limit: number): Promise<WebhookDelivery[]> {
    await this.get(endpointId);
    const rows = await endpointDeliveries(this.em, endpointId, status ?? null, Math.max(1, Math.min(limit, MAX_DELIVERIES_PAGE)));
    return rows.map(deliveryOf);
  }

  /** Sends a delivery again as soon as the worker runs (any status; the endpoint must be enabled). */
  async redeliver(deliveryId: string): Promise<WebhookDelivery> {
    const owner = this.owner();
    const delivery = isUuid(deliveryId) ? await ownerDelivery(this.em, owner, deliveryId) : undefined;
    if (!delivery) throw notFound('WebhookDelivery', deliveryId);
    if (!delivery.enabled) new Validator().add('base', 'invalid', 'the endpoint is disabled; enable it first').throwIfAny();
    return deliveryOf(await redeliverNow(this.em, deliveryId));
  }
}

/** The attempt log of many deliveries at once (one statement, for the DataLoader). */
export async function loadAttempts(em: EntityManager, deliveryIds: readonly string[]): Promise<WebhookDeliveryAttempt[][]> {
  const rows = await deliveryAttempts(em, deliveryIds);
  const by = new Map<string, WebhookDeliveryAttempt[]>();
  for (const r of rows) {
    const a = Object.assign(new WebhookDeliveryAttempt(), {
      attempt: r.attempt,
      succeeded: r.succeeded,
      responseCode: r.response_code,
      durationMs: r.duration_ms,
      error: r.error,
      createdAt: toDate(r.created_at),
    });
    by.set(r.delivery_id, [...(by.get(r.delivery_id) ?? []), a]);
  }
  return deliveryIds.map((id) => by.get(id) ?? []);
}

function checkDescription(description: string | null | undefined, v: Validator): void {
  if (description && description.length > MAX_DESCRIPTION) v.add('description', 'too_long', `is too long (maximum is ${MAX_DESCRIPTION} characters)`);
}

function checkEvents(events: WebhookEvent[] | null | undefined, v: Validator, required: boolean): WebhookEvent[] | undefined {
  if (events === undefined || events === null || !events.length) {
    if (required) v.add('events', 'blank');
    return undefined;
  }
  return [...new Set(events)];
}

export function endpointOf(row: EndpointRow): WebhookEndpoint {
  return Object.assign(new WebhookEndpoint(), {
    id: row.id,
    ownerType: row.owner_company_id ? 'Company' : 'Retailer',
    ownerId: row.owner_company_id ?? row.owner_retailer_id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    failingSince: toDate(row.failing_since),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  });
}

function deliveryOf(row: DeliveryRow): WebhookDelivery {
  return Object.assign(new WebhookDelivery(), {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    leadId: row.lead_id,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: toDate(row.next_attempt_at),
    lastResponseCode: row.last_response_code,
    lastError: row.last_error,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  });
}
