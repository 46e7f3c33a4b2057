import { Migration } from '@mikro-orm/migrations';

export class Migration20261121104921 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index "reports_url_trgm";`);

    this.addSql(
      `alter table "reports" add column "url_lower" text generated always as (lower((url)::text)) stored null;`,
    );
    this.addSql(`create index "reports_url_lower_trgm" on "reports" using gin ("url_lower" gin_trgm_ops);`);
    // A finer histogram for LIKE '%term%' estimates: with the default 100 buckets a term in ~1%
    // of the rows is often estimated at 0.01%, and the search then reads every match through
    // the trigram index instead of walking the sort order until the page is full.
    this.addSql(`alter table "reports" alter column "url_lower" set statistics 1000;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "reports_url_lower_trgm";`);
    this.addSql(`alter table "reports" drop column "url_lower";`);

    this.addSql(`create index "reports_url_trgm" on "reports" using gin ("url" gin_trgm_ops);`);
  }
}
