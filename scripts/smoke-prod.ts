/**
 * `npm run smoke:prod`: builds (`npm run build`), starts the production server with `npm run start:prod`
 * (`node dist/src/main.js`, as a deployment does) on a free port, seeds the demo network, and checks every page and asset
 * over HTTP and in Chromium (scripts/smoke/checks.ts); then stops everything it started. Exit code 0 only
 * when every check passed.
 *
 * The database: without DATABASE_URL, the server starts its own embedded PostgreSQL (as `npm start`
 * does) in a temporary DATA_DIR on a free port, removed afterwards. With DATABASE_URL, a scratch database
 * is created on that server (`leadnet_smoke_<pid>`, the user needs CREATEDB) and dropped afterwards.
 *
 * Options: `--no-build` uses the existing dist/.
 */
import { run, seedDemo, startProduction, type ProductionServer } from './prod-server';
import { smokeCheck } from './smoke/checks';

async function main(): Promise<number> {
  const started = Date.now();
  const say = (line: string) => console.log(`[smoke:prod] ${line}`);
  let server: ProductionServer | undefined;
  try {
    if (!process.argv.includes('--no-build')) {
      say('npm run build');
      await run(['npm', 'run', '-s', 'build']);
    }
    server = await startProduction('smoke', say);
    // The demo network through the CLI, on the same database (the running server's embedded one).
    const seed = await seedDemo(server);
    const apiKey = seed.users.find((u) => u.role === 'company_admin')!.api_key;

    const report = await smokeCheck({ url: server.url, companyId: seed.company.id, apiKey, metricsToken: process.env.METRICS_TOKEN }, (line) => say(line));
    const errors = server.output().split('\n').filter((l) => /"level":(50|60)/.test(l));
    if (errors.length) report.failures.push(`the server logged errors:\n${errors.join('\n')}`);
    say(`${report.passed.length} checks passed, ${report.failures.length} failed (${Math.round((Date.now() - started) / 1000)} s)`);
    for (const f of report.failures) console.error(`[smoke:prod] FAILED: ${f}`);
    return report.failures.length ? 1 : 0;
  } catch (e) {
    console.error(`[smoke:prod] FAILED: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    await server?.close();
  }
}

void main().then((code) => process.exit(code));
