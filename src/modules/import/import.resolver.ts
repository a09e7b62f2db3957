import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { AppError } from '../../errors';
import { about, authorize } from '../../access/policy';
import { importPolicy } from './import.policy';
import { CompanyService } from '../company/company.service';
import { importProducts } from './product-import';
import { importLocations } from './location-import';
import { importLeads } from './lead-import';
import { ImportError } from './csv';
import type { ImportReport as Report } from './transaction';
import { ImportReport } from './import.types';

/**
 * The CLI imports over GraphQL, for a CSV file's text (a request body is at most 1 MiB: a bigger file
 * goes through `leadnet import`). The company's admins and the platform operator may import; another
 * company is 404 or 403 as its reads are. The text is the file as the client decoded it: there is no
 * encoding argument, and text that shows a wrong decoding (U+FFFD), NUL or control characters is
 * refused like malformed CSV, as BAD_USER_INPUT naming the line and column. Each call is one
 * transaction under the company's import lock; while another import of the company runs, a call waits
 * up to 3 s and then answers SERVICE_UNAVAILABLE (503, Retry-After).
 */
@Resolver()
export class ImportResolver {
  @Mutation(() => ImportReport, { description: "Creates or updates the company's stores from CSV text, as `leadnet import locations` does (README: Import)." })
  importLocations(
    @Arg('companyId', () => ID, { description: 'The company whose stores are imported (UUID); its admin or the platform operator.' }) companyId: string,
    @Arg('csv', () => String, { description: 'The CSV file\'s text, one store a row with a header row (columns: docs/import-export.md); at most 1 MiB.' }) csv: string,
    @Arg('dryRun', () => Boolean, { defaultValue: false, description: 'Check every row and report what would change, writing nothing.' }) dryRun: boolean,
    @Ctx() ctx: Context,
  ) {
    return run(ctx, companyId, () => importLocations(ctx.em, ctx.geocoder, companyId, csv, { dryRun, source: 'text', actor: ctx.caller }));
  }

  @Mutation(() => ImportReport, { description: "Creates or updates the company's products (and stock) from CSV text, as `leadnet import products` does." })
  importProducts(
    @Arg('companyId', () => ID, { description: 'The company whose catalog is imported (UUID); its admin or the platform operator.' }) companyId: string,
    @Arg('csv', () => String, { description: 'The CSV file\'s text, one product a row with a header row (columns: docs/import-export.md); at most 1 MiB.' }) csv: string,
    @Arg('dryRun', () => Boolean, { defaultValue: false, description: 'Check every row and report what would change, writing nothing.' }) dryRun: boolean,
    @Ctx() ctx: Context,
  ) {
    return run(ctx, companyId, () => importProducts(ctx.em, companyId, csv, { dryRun, source: 'text', actor: ctx.caller }));
  }

  @Mutation(() => ImportReport, {
    description: "Creates the company's leads from CSV text, as `leadnet import leads` does: each row as `createLeads` creates it (a duplicate merges: `updated`), with its consent recorded with source `import`.",
  })
  importLeads(
    @Arg('companyId', () => ID, { description: 'The company whose leads are imported (UUID); its admin or the platform operator.' }) companyId: string,
    @Arg('csv', () => String, { description: 'The CSV file\'s text, one lead a row with a header row (columns: docs/import-export.md); at most 1 MiB and 10,000 rows.' }) csv: string,
    @Arg('dryRun', () => Boolean, { defaultValue: false, description: 'Check every row and report what would be created or merged, writing nothing.' }) dryRun: boolean,
    @Ctx() ctx: Context,
  ) {
    return run(ctx, companyId, () => importLeads(ctx.em, ctx, companyId, csv, { dryRun, source: 'text', actor: ctx.caller }));
  }
}

async function run(ctx: Context, companyId: string, importer: () => Promise<Report>): Promise<ImportReport> {
  await new CompanyService(ctx).get(companyId);
  authorize(ctx.caller, 'import', about(importPolicy, { companyId }));
  try {
    const report = await importer();
    return { ...report, dryRun: report.dry_run, errorsOmitted: report.errors_omitted, ignoredColumns: report.ignored_columns };
  } catch (e) {
    if (!(e instanceof ImportError)) throw e;
    // SERVICE_UNAVAILABLE is answered 503 with Retry-After (src/graphql/outage.ts).
    if (e.code === 'BUSY') throw new AppError('SERVICE_UNAVAILABLE', `CSV: ${e.message}`);
    throw new AppError('BAD_USER_INPUT', `CSV: ${e.message}`);
  }
}
