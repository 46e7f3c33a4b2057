import { Migration } from '@mikro-orm/migrations';

/**
 * `results` as `json` (stored text) rather than `jsonb`: report lists send it as stored, and
 * jsonb's conversion back to text was a third of a 100-report page's query time. Rewrites the
 * table once; object keys keep jsonb's order in rows written before it.
 */
export class Migration20261125030000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "reports" alter column "results" type json using "results"::json;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "reports" alter column "results" type jsonb using "results"::jsonb;`);
  }
}
