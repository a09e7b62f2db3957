import request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

test('/healthz and /readyz answer outside /v1 without a key', async () => {
  expect((await request(t.app).get('/healthz')).body).toEqual({ status: 'ok' });
  expect((await request(t.app).get('/readyz')).body).toEqual({ status: 'ok', database: 'up' });
});

test('an unknown route outside /v1 is a JSON 404', async () => {
  const res = await request(t.app).get('/nope');
  expect(res.status).toBe(404);
  expect(res.body).toMatchObject({ status: 404, error: 'Not Found' });
});
