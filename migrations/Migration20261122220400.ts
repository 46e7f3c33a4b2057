import { Migration } from '@mikro-orm/migrations';

/** Per-site siteverify limit (issue 14); null keeps the spec's 120 a minute. */
export class Migration20261122220400 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "sites" add column "siteverify_per_minute" int null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "sites" drop column "siteverify_per_minute";`);
  }
}
