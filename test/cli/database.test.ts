import net from 'node:net';
import { isListening, openDatabase } from '../../src/cli/database';
import { parseConfig } from '../../src/config';

test('DATABASE_URL wins', async () => {
  const db = await openDatabase(parseConfig({ DATABASE_URL: 'postgres://u:p@db.example:5432/leadnet' }));
  expect(db).toMatchObject({ url: 'postgres://u:p@db.example:5432/leadnet', source: 'database_url' });
});

test('a running service (something listening on EMBEDDED_PG_PORT) is reused, not started again', async () => {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  try {
    expect(await isListening(port)).toBe(true);
    const progress: string[] = [];
    const db = await openDatabase(parseConfig({ EMBEDDED_PG_PORT: String(port), DATA_DIR: '/nonexistent/leadnet' }), (l) => progress.push(l));
    expect(db).toMatchObject({ url: `postgres://postgres:postgres@127.0.0.1:${port}/leadnet`, source: 'running' });
    expect(progress).toEqual([]);
    await db.close();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  expect(await isListening(port)).toBe(false);
});
