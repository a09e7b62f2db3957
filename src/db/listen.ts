import type { ClientBase } from 'pg';

/** Starts listening on `channel` (an identifier, never a value) on a connection of its own. */
export async function listen(client: ClientBase, channel: string): Promise<void> {
  await client.query(`listen ${channel}`);
}
