import type { MikroORM } from '@mikro-orm/postgresql';

/** The company a store finder page is for (a UUID), on the shared pool; undefined when there is none. */
export async function widgetCompany(orm: MikroORM, id: string): Promise<{ id: string; name: string } | undefined> {
  const [company] = await orm.em.getConnection().execute('select id, name from companies where id = ?::uuid', [id]);
  return company as { id: string; name: string } | undefined;
}
