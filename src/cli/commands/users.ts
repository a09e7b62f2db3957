import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CliRuntime } from '../runtime';
import { Role } from '../../modules/user/role';
import { roleOption, uuid, uuidList } from '../args';
import { table, userJson, userText } from '../output';

interface CreateOptions {
  email: string;
  name?: string;
  role: Role;
  company?: string;
  retailer?: string;
  territory?: string;
  companyRetailer?: string[];
  crl?: string[];
  retailerLocation?: string[];
}

interface ListOptions {
  company?: string;
  retailer?: string;
  role?: Role;
  query?: string;
  page?: number;
  perPage?: number;
}

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`"${value}" is not a whole number of at least 1.`);
  return Number(value);
}

export function register(program: Command, runtime: CliRuntime): void {
  const users = program.command('users').description('Create and list users');

  runtime.action<CreateOptions>(
    users
      .command('create')
      .description('Create a user; the scope assignment must fit the role (PRODUCT.md section 2)')
      .requiredOption('--email <email>', 'unique, stored lower-cased')
      .option('--name <name>', 'display name')
      .addOption(roleOption())
      .option('--company <id>', 'the company of a company role', uuid)
      .option('--retailer <id>', 'the retailer of a retailer role', uuid)
      .option('--territory <id>', 'territory of a company_territory_manager (required for it)', uuid)
      .option('--company-retailer <ids...>', 'company retailers of a company_retailer_manager', uuidList)
      .option('--crl <ids...>', 'company retailer locations of a company_location_user or company_sales_associate', uuidList)
      .option('--retailer-location <ids...>', 'retailer locations of a retailer_store_manager', uuidList),
    async (session, o) => {
      const service = await session.users();
      const user = await service.create({
        email: o.email,
        name: o.name,
        role: o.role,
        companyId: o.company,
        retailerId: o.retailer,
        territoryId: o.territory,
        companyRetailerIds: o.companyRetailer,
        companyRetailerLocationIds: o.crl,
        retailerLocationIds: o.retailerLocation,
      });
      const [assignments] = await service.assignments([user]);
      return { json: userJson(user, assignments), text: `Created user ${userText(user, assignments)}` };
    },
  );

  runtime.action<ListOptions>(
    users
      .command('list')
      .description('List users, newest first')
      .option('--company <id>', 'only users of this company', uuid)
      .option('--retailer <id>', 'only users of this retailer', uuid)
      .addOption(new Option('--role <role>', 'only users with this role').choices(Object.values(Role)))
      .option('--query <words>', 'words matching the email or name')
      .option('--page <n>', 'page number', positiveInt, 1)
      .option('--per-page <n>', 'users per page (at most 500)', positiveInt, 100),
    async (session, o) => {
      const service = await session.users();
      // The list's typed arguments, as GraphQL's `UserWhere` takes them.
      const where: Record<string, { eq: string }> = {};
      if (o.company) where.companyId = { eq: o.company };
      if (o.retailer) where.retailerId = { eq: o.retailer };
      if (o.role) where.role = { eq: o.role };
      const page = await service.list({ q: o.query, where, page: o.page, perPage: o.perPage });
      const assignments = await service.assignments(page.nodes);
      const meta = page.meta;
      return {
        json: {
          users: page.nodes.map((u, i) => userJson(u, assignments[i])),
          meta: { total: meta.total, page: meta.page, per_page: meta.perPage, total_pages: meta.totalPages },
        },
        text: [
          table(
            ['ID', 'EMAIL', 'ROLE', 'COMPANY / RETAILER', 'NAME'],
            page.nodes.map((u) => [u.id, u.email, u.role, u.companyId ?? u.retailerId, u.name]),
          ),
          `${meta.total} user(s), page ${meta.page} of ${Math.max(meta.totalPages, 1)}`,
        ].join('\n'),
      };
    },
  );
}
