import type { Command } from 'commander';
import { demoBanner, demoJson, seedDemo } from '../../modules/demo/demo-seed';
import { modules } from '../../modules';
import { CliError, type CliRuntime } from '../runtime';

export function register(program: Command, runtime: CliRuntime): void {
  runtime.action(
    program
      .command('seed-demo')
      .description('Seed a small demo network into an empty database and print one API key per role (refuses when companies exist)'),
    async (session) => {
      const orm = await session.orm();
      const demo = await seedDemo(orm.em.fork(), modules);
      if (!demo) throw new CliError('The database is not empty (it has companies or demo users); seed-demo only seeds an empty database.', 'NOT_EMPTY');
      const baseUrl = `http://localhost:${session.config.port}`;
      return { json: demoJson(demo, baseUrl), text: demoBanner(demo, baseUrl) };
    },
  );
}
