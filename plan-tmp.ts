import { Client } from 'pg';
import { leadSearch } from './src/modules/lead/lead.search';
import { leadScope } from './src/modules/lead/lead.policy';
import { planSearch } from './src/search/postgres';
import { Role } from './src/modules/user/role';
async function main() {
  const db = new Client({ connectionString: process.env.URL });
  await db.connect();
  const { rows: [u] } = await db.query(`select u.id, u.company_id, array_agg(x.company_retailer_id) as crs from users u join user_company_retailers x on x.user_id = u.id where email = 'cr-manager-a@perf.test' group by 1, 2`);
  const caller: any = { role: Role.CompanyRetailerManager, userId: u.id, companyId: u.company_id, companyRetailerIds: u.crs, companyRetailerLocationIds: [], retailerLocationIds: [] };
  const page = Number(process.env.PAGE ?? 39);
  const plan = planSearch(leadSearch, { page, perPage: 50, scope: leadScope(caller) });
  let i = 0;
  const toPg = (sql: string) => sql.replace(/\?/g, () => `$${++i}`);
  for (const st of [plan.page, plan.count]) {
    i = 0;
    const r = await db.query(`explain (analyze, buffers off) ${toPg(st.sql)}`, st.bindings as any[]);
    console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n'));
  }
  await db.end();
}
main();
