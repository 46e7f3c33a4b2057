import { Migration } from '@mikro-orm/migrations';

/** Per-site security level and optional work floor (issue 10). */
export class Migration20261122220200 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "sites" add column "security_level" varchar(16) not null default 'default', add column "min_work_bits" int null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "sites" drop column "security_level", drop column "min_work_bits";`);
  }
}
