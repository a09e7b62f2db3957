import type { User } from '../modules/user/user.entity';
import type { ApiKey } from '../modules/user/api-key.entity';
import type { UserAssignments } from '../modules/user/user.service';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** A user as `--json` prints it (snake_case, like the REST resources). */
export function userJson(user: User, a: UserAssignments) {
  return {
    id: user.id,
    email: user.email,
    name: user.name ?? null,
    role: user.role,
    company_id: user.companyId,
    retailer_id: user.retailerId,
    territory_id: user.territoryId,
    company_retailer_ids: a.companyRetailerIds,
    company_retailer_location_ids: a.companyRetailerLocationIds,
    retailer_location_ids: a.retailerLocationIds,
    created_at: iso(user.createdAt),
    updated_at: iso(user.updatedAt),
  };
}

/** A stored key as `--json` prints it: never its hash. */
export function apiKeyJson(key: ApiKey) {
  return {
    id: key.id,
    user_id: key.userId,
    prefix: key.prefix,
    label: key.label ?? null,
    created_at: iso(key.createdAt),
    last_used_at: iso(key.lastUsedAt),
    revoked_at: iso(key.revokedAt),
  };
}

/** Rows as aligned columns under a header. */
export function table(header: string[], rows: Array<Array<string | null | undefined>>): string {
  const cells = [header, ...rows.map((r) => r.map((c) => c ?? '-'))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

export function userText(user: User, a: UserAssignments): string {
  const lines = [`${user.email} (${user.role})`, `  id: ${user.id}`];
  if (user.name) lines.push(`  name: ${user.name}`);
  if (user.companyId) lines.push(`  company: ${user.companyId}`);
  if (user.retailerId) lines.push(`  retailer: ${user.retailerId}`);
  if (user.territoryId) lines.push(`  territory: ${user.territoryId}`);
  if (a.companyRetailerIds.length) lines.push(`  company retailers: ${a.companyRetailerIds.join(', ')}`);
  if (a.companyRetailerLocationIds.length) lines.push(`  company retailer locations: ${a.companyRetailerLocationIds.join(', ')}`);
  if (a.retailerLocationIds.length) lines.push(`  retailer locations: ${a.retailerLocationIds.join(', ')}`);
  return lines.join('\n');
}

/** The plain key with a reminder that it is shown only once. */
export function plainKeyText(user: User, key: ApiKey, plainKey: string): string {
  return [
    `New API key ${key.id}${key.label ? ` (${key.label})` : ''} for ${user.email}.`,
    'Store it now: it is shown only this once.',
    '',
    plainKey,
  ].join('\n');
}
