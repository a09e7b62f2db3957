import type { Command } from 'commander';
import type { CliRuntime } from '../runtime';
import { apiKeyJson, plainKeyText, userJson } from '../output';

export function register(program: Command, runtime: CliRuntime): void {
  runtime.action<{ email: string; name?: string; label: string }>(
    program
      .command('bootstrap')
      .description('Create a platform operator (unless it exists) and print a new API key for it')
      .requiredOption('--email <email>', "the operator's email")
      .option('--name <name>', "the operator's name, when it is created")
      .option('--label <label>', 'label of the new key', 'bootstrap'),
    async (session, o) => {
      const users = await session.users();
      const { user, created } = await users.ensurePlatformOperator(o.email, o.name);
      const { apiKey, plainKey } = await users.generateApiKey(user.id, o.label);
      const [assignments] = await users.assignments([user]);
      return {
        json: { created, user: userJson(user, assignments), api_key: apiKeyJson(apiKey), plain_key: plainKey },
        text: `${created ? 'Created platform operator' : 'Platform operator exists:'} ${user.email} (${user.id}).\n${plainKeyText(user, apiKey, plainKey)}`,
      };
    },
  );
}
