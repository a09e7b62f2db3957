import type { Command } from 'commander';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../../mikro-orm.config';
import type { CliRuntime } from '../runtime';

export function register(program: Command, runtime: CliRuntime): void {
  runtime.action(program.command('migrate').description('Apply pending database migrations'), async (session) => {
    // Not initOrm: it migrates on connect, and this command reports what it applied.
    const orm = await MikroORM.init(ormConfig(await session.databaseUrl(), session.ormOptions));
    try {
      const applied = (await orm.getMigrator().up()).map((m) => m.name);
      return {
        json: { applied },
        text: applied.length ? `Applied ${applied.length} migration(s):\n${applied.map((n) => `  ${n}`).join('\n')}` : 'The database is up to date.',
      };
    } finally {
      await orm.close();
    }
  });
}
