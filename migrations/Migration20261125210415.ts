import { Migration } from '@mikro-orm/migrations';

/**
 * The (user_id, id) index of the default sort, rebuilt covering `url_lower`, so a search sorted
 * by id is an index-only scan that filters each entry in the index instead of visiting a heap
 * row per candidate (src/entities/report.entity.ts). Building it reads the whole reports table
 * once, at the first start after the upgrade.
 */
export class Migration20261125210415 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "reports_user_id_id_url_lower_index" on "reports" ("user_id", "id") include ("url_lower");`,
    );
    this.addSql(`drop index "reports_user_id_id_index";`);
  }

  override async down(): Promise<void> {
    this.addSql(`create index "reports_user_id_id_index" on "reports" ("user_id", "id");`);
    this.addSql(`drop index "reports_user_id_id_url_lower_index";`);
  }
}
