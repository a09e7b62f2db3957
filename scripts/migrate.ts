// Applies pending migrations to DATABASE_URL (used by the test set-up; the CLI has `leadnet migrate`).
import 'reflect-metadata';
import { initAppOrm } from '../mikro-orm.config';

initAppOrm(process.env.DATABASE_URL!, { debug: false })
  .then((orm) => orm.close())
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
