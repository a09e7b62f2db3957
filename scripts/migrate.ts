// Applies pending migrations to DATABASE_URL (used by the test set-up; the CLI has `leadnet migrate`).
import 'reflect-metadata';
import { initOrm } from '../src/db/orm';

initOrm(process.env.DATABASE_URL!, { debug: false })
  .then((orm) => orm.close())
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
