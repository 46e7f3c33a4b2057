// The migration worker (orm.ts `migrateDatabase`): opens its own ORM on the PostgreSQL URL it
// is given, applies pending migrations under the advisory lock, reports the names applied
// and ends. A failure ends it with the error, which the parent rethrows.
import { parentPort, workerData } from 'node:worker_threads';
import { initORM, migrate } from './orm.ts';

const { databaseUrl } = workerData as { databaseUrl: string };
const db = await initORM({ databaseUrl }, { pool: { min: 0, max: 2 } });
try {
  parentPort!.postMessage({ applied: await migrate(db.orm) });
} finally {
  await db.close();
}
