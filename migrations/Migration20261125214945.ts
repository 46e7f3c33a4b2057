import { Migration } from '@mikro-orm/migrations';

/**
 * The (user_id, result, id) index of the result filter, rebuilt covering `url_lower` like the
 * default sort's (Migration20261125210415): a search among one grade's reports is an index-only
 * scan. Building it reads the whole reports table once, at the first start after the upgrade.
 */
export class Migration20261125214945 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "reports_user_id_result_id_url_lower_index" on "reports" ("user_id", "result", "id") include ("url_lower");`,
    );
    this.addSql(`drop index "reports_user_id_result_id_index";`);
  }

  override async down(): Promise<void> {
    this.addSql(`create index "reports_user_id_result_id_index" on "reports" ("user_id", "result", "id");`);
    this.addSql(`drop index "reports_user_id_result_id_url_lower_index";`);
  }
}
