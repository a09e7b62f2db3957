import type { EntityManager } from '@mikro-orm/postgresql';

/** One set-valued scope assignment of a user: a company retailer (`cr`), a CRL (`crl`) or a retailer location (`rl`). */
export interface AssignmentRow {
  kind: 'cr' | 'crl' | 'rl';
  user_id: string;
  id: string;
}

/** The set-valued scope assignments of these users (UUIDs), in one statement; none without users. */
export async function assignmentRows(em: EntityManager, userIds: readonly string[]): Promise<AssignmentRow[]> {
  if (!userIds.length) return [];
  // A PostgreSQL array literal: the connection would spread a JS array into a list.
  const list = `{${userIds.join(',')}}`;
  return em.getConnection().execute(
        `select 'cr' as kind, user_id, company_retailer_id as id from user_company_retailers where user_id = any(?::uuid[])
         union all
         select 'crl', user_id, company_retailer_location_id from user_company_retailer_locations where user_id = any(?::uuid[])
         union all
         select 'rl', user_id, retailer_location_id from user_retailer_locations where user_id = any(?::uuid[])
         order by 3`,
    [list, list, list],
  );
}
