import type { Command } from 'commander';
import type { CliRuntime } from '../runtime';
import { userRef, uuid } from '../args';
import { apiKeyJson, plainKeyText, table } from '../output';

export function register(program: Command, runtime: CliRuntime): void {
  const keys = program.command('keys').description("Generate, list and revoke users' API keys");

  runtime.action<{ user: string; label?: string }>(
    keys
      .command('generate')
      .description('Generate an API key for a user and print it (shown only this once)')
      .requiredOption('--user <id-or-email>', 'the user, by id or email', userRef)
      .option('--label <label>', 'what the key is for'),
    async (session, o) => {
      const users = await session.users();
      const user = await users.find(o.user);
      const { apiKey, plainKey } = await users.generateApiKey(user.id, o.label);
      return { json: { api_key: apiKeyJson(apiKey), plain_key: plainKey }, text: plainKeyText(user, apiKey, plainKey) };
    },
  );

  runtime.action<{ user: string }>(
    keys
      .command('list')
      .description("List a user's API keys, newest first (prefixes only; keys are not stored)")
      .requiredOption('--user <id-or-email>', 'the user, by id or email', userRef),
    async (session, o) => {
      const users = await session.users();
      const user = await users.find(o.user);
      const list = await users.apiKeys(user.id);
      const at = (d: Date | null | undefined) => d?.toISOString() ?? null;
      return {
        json: { api_keys: list.map(apiKeyJson) },
        text: list.length
          ? table(
              ['ID', 'PREFIX', 'LABEL', 'CREATED', 'LAST USED', 'REVOKED'],
              list.map((k) => [k.id, k.prefix, k.label, at(k.createdAt), at(k.lastUsedAt), at(k.revokedAt)]),
            )
          : `${user.email} has no API keys.`,
      };
    },
  );

  runtime.action(
    keys.command('revoke').description('Revoke an API key at once (its next request is 401)').argument('<id>', 'the key id', uuid),
    async (session, _o, [id]) => {
      const users = await session.users();
      const key = await users.revokeApiKey(id);
      return { json: { api_key: apiKeyJson(key) }, text: `API key ${key.id} (${key.prefix}...) is revoked since ${key.revokedAt!.toISOString()}.` };
    },
  );
}
