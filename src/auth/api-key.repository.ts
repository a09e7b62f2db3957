import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql';

/** The user of an unrevoked key, with its scope assignments. */
export interface KeyCallerRow {
  key_id: string;
  key_hash: string;
  id: string;
  role: string;
  company_id: string | null;
  retailer_id: string | null;
  territory_id: string | null;
  cr_ids: string[] | null;
  crl_ids: string[] | null;
  rl_ids: string[] | null;
}

/**
 * The caller of the unrevoked key with this hash, in one statement that also stamps the key's last use
 * (at most once a minute).
 */
export async function keyCallerRow(em: EntityManager, hash: string): Promise<KeyCallerRow | undefined> {
  const rows = await query<KeyCallerRow>(
    em,
    `with k as (
       select id, user_id, key_hash from api_keys where key_hash = ? and revoked_at is null
     ), touch as (
       update api_keys set last_used_at = now()
        where id in (select id from k) and (last_used_at is null or last_used_at < now() - interval '60 seconds')
     )
     select k.id as key_id, k.key_hash, u.id, u.role, u.company_id, u.retailer_id, u.territory_id,
            array(select company_retailer_id from user_company_retailers where user_id = u.id) as cr_ids,
            array(select company_retailer_location_id from user_company_retailer_locations where user_id = u.id) as crl_ids,
            array(select retailer_location_id from user_retailer_locations where user_id = u.id) as rl_ids
       from k join users u on u.id = k.user_id`,
    [hash],
  );
  return rows[0];
}
