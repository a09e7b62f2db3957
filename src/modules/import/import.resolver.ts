import { Readable } from 'node:stream';
import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { badRequest, forbidden } from '../../errors';
import { Role } from '../user/role';
import { CompanyService } from '../company/company.service';
import { ImportError, importProducts, type ImportReport as Report } from './product-import';
import { importLocations } from './location-import';
import { ImportReport } from './import.types';

/**
 * The CLI imports over GraphQL, for a CSV file's text (a request body is at most 1 MiB: a bigger file
 * goes through `leadnet import`). The company's admins and the platform operator may import; another
 * company is 404 or 403 as its reads are.
 */
@Resolver()
export class ImportResolver {
  @Mutation(() => ImportReport, { description: 'Creates or updates the company\'s stores from CSV text, as `leadnet import locations` does (README: Import).' })
  importLocations(
    @Arg('companyId', () => ID) companyId: string,
    @Arg('csv', () => String) csv: string,
    @Arg('dryRun', () => Boolean, { defaultValue: false }) dryRun: boolean,
    @Ctx() ctx: Context,
  ) {
    return run(ctx, companyId, csv, (input) => importLocations(ctx.em, ctx.geocoder, companyId, input, { dryRun }));
  }

  @Mutation(() => ImportReport, { description: 'Creates or updates the company\'s products (and stock) from CSV text, as `leadnet import products` does.' })
  importProducts(
    @Arg('companyId', () => ID) companyId: string,
    @Arg('csv', () => String) csv: string,
    @Arg('dryRun', () => Boolean, { defaultValue: false }) dryRun: boolean,
    @Ctx() ctx: Context,
  ) {
    return run(ctx, companyId, csv, (input) => importProducts(ctx.em, companyId, input, { dryRun }));
  }
}

async function run(ctx: Context, companyId: string, csv: string, importer: (input: Readable) => Promise<Report>): Promise<ImportReport> {
  await new CompanyService(ctx).get(companyId);
  const caller = ctx.caller!;
  if (caller.role !== Role.PlatformOperator && !(caller.role === Role.CompanyAdmin && caller.companyId === companyId)) throw forbidden();
  try {
    const report = await importer(Readable.from([csv]));
    return { ...report, dryRun: report.dry_run };
  } catch (e) {
    if (e instanceof ImportError) throw badRequest(`CSV: ${e.message}`);
    if (e instanceof Error && 'code' in e && String((e as any).code).startsWith('CSV_')) throw badRequest(`CSV: ${e.message}`);
    throw e;
  }
}
