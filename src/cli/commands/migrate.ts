import type { Command } from 'commander';
import { migrate } from '../../db/migrate';
import { entities } from '../../../mikro-orm.config';
import type { CliRuntime } from '../runtime';

export function register(program: Command, runtime: CliRuntime): void {
  runtime.action(program.command('migrate').description('Apply pending database migrations'), async (session) => {
    // Not initOrm: this command reports what it applied.
    const applied = await migrate(await session.databaseUrl(), entities, session.ormOptions);
    return {
      json: { applied },
      text: applied.length ? `Applied ${applied.length} migration(s):\n${applied.map((n) => `  ${n}`).join('\n')}` : 'The database is up to date.',
    };
  });
}
