import { PGliteKnexDialect } from 'mikro-orm-pglite';

/**
 * Whether SQL holds more than one statement. Semicolons inside string literals (with ''
 * escapes), E'' strings, quoted identifiers, dollar-quoted bodies and comments do not count.
 */
export function isMultiStatement(sql: string): boolean {
  let i = 0;
  let statements = 0;
  let content = false;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      // A quoted literal or identifier; a doubled quote stays inside it. E'..' also allows \'.
      const escapes = c === "'" && i > 0 && /[eE]/.test(sql[i - 1]!);
      i++;
      while (i < n) {
        if (escapes && sql[i] === '\\') i += 2;
        else if (sql[i] === c && sql[i + 1] === c) i += 2;
        else if (sql[i] === c) break;
        else i++;
      }
      i++;
      content = true;
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
    } else if (c === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        i = end === -1 ? n : end + tag[0].length;
        content = true;
      } else {
        i++;
        content = true;
      }
    } else if (c === ';') {
      if (content) statements++;
      content = false;
      i++;
    } else {
      if (!/\s/.test(c)) content = true;
      i++;
    }
  }
  if (content) statements++;
  return statements > 1;
}

interface QueryObject {
  sql?: string;
  method?: string;
  bindings?: unknown[];
  response?: unknown;
}

/**
 * The PGlite knex dialect sends raw SQL through `exec` (several statements, no bindings)
 * whenever the text splits on ';' into more than one part, so a value holding ';' (a search
 * for "a;b") came back in the wrong shape and failed. Counting statements with the literal-
 * aware scanner above keeps such values on the ordinary parameterised path.
 */
export function patchPGliteStatementSplitting(): void {
  const proto = PGliteKnexDialect.prototype as unknown as {
    _query(connection: { exec(sql: string): Promise<unknown>; query(sql: string, bindings: unknown[]): Promise<unknown> }, obj: QueryObject): Promise<QueryObject>;
  };
  proto._query = async function (connection, obj) {
    if (!obj.sql) throw new Error('The query is empty');
    obj.response =
      obj.method === 'raw' && isMultiStatement(obj.sql)
        ? await connection.exec(obj.sql)
        : await connection.query(obj.sql, obj.bindings ?? []);
    return obj;
  };
}
