import { Migration } from '@mikro-orm/migrations';

/**
 * A report's full address (scheme, `www.`, the path as analysed) in a column of its own. `url`
 * keeps phpRank's short form; re-analysis and the share page read the full one here instead
 * of out of the `seo_friendly_url` check's value. Existing rows take it from that value, as
 * the code read it until now, or `http://` and the short form where the value is not a URL.
 */
export class Migration20261128160000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "reports" add column "full_url" text null;`);
    this.addSql(
      `update "reports" set "full_url" = case
         when "results"->'seo_friendly_url'->>'value' ~* '^https?://' then "results"->'seo_friendly_url'->>'value'
         else 'http://' || "url" end;`,
    );
    this.addSql(`alter table "reports" alter column "full_url" set not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "reports" drop column "full_url";`);
  }
}
