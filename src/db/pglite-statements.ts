import { PGliteConnection, PGliteDriver, PGliteKnexDialect } from 'mikro-orm-pglite';
import type { Configuration } from '@mikro-orm/core';

type QueryArgs = Parameters<PGliteKnexDialect['_query']>;

/**
 * The knex-pglite dialect sends raw SQL through `exec` only when its text splits on ';'
 * into several parts, so a value holding ';' (MikroORM inlines the values of raw queries: a
 * search for "a;b") took the multi-statement path and came back in the wrong shape. Here
 * raw SQL without bindings always goes through PGlite's own `exec`, which runs one or
 * several statements with PostgreSQL's own parser; one statement's result is unwrapped
 * into the shape `query` gives. No SQL is scanned here and no prototype is touched.
 */
class StatementSafeDialect extends PGliteKnexDialect {
  override async _query(connection: QueryArgs[0], obj: QueryArgs[1]): Promise<QueryArgs[1]> {
    if (!obj.sql) throw new Error('The query is empty');
    if (obj.method === 'raw' && !obj.bindings?.length) {
      const results = await connection.exec(obj.sql);
      obj.response = results.length === 1 ? results[0] : results;
    } else {
      obj.response = await connection.query(obj.sql, obj.bindings ?? []);
    }
    return obj;
  }
}

class StatementSafeConnection extends PGliteConnection {
  /** PGliteConnection's own createKnex, on the dialect above instead of the stock one. */
  override createKnex(): void {
    const self = this as unknown as { dialectDataSource: unknown; config: unknown; connected: boolean };
    this.client = this.createKnexClient(StatementSafeDialect as never);
    const dialect = this.getKnex().client as { driver: unknown; ormConfig: unknown };
    dialect.ormConfig = self.config;
    dialect.driver = self.dialectDataSource;
    self.connected = true;
  }
}

/** mikro-orm-pglite's driver with the raw-SQL routing above; pass it as `driver`. */
export class StatementSafePGliteDriver extends PGliteDriver {
  constructor(config: Configuration) {
    super(config);
    (this as unknown as { connection: PGliteConnection }).connection = new StatementSafeConnection(config);
    (this as unknown as { replicas: PGliteConnection[] }).replicas = [];
  }
}
