import { Migration } from '@mikro-orm/migrations';

/**
 * `users.reports_version`: changes whenever any of the user's reports is written, in the
 * writing transaction, so an exact search total cached under it stays exact (see
 * src/reports/search-totals.ts). Triggers keep it, so no writer of `reports` can forget; the
 * value comes from a sequence, so it never repeats for a user id, even one reused.
 */
export class Migration20261125100000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create sequence "reports_version_seq";`);
    this.addSql(`alter table "users" add column "reports_version" bigint not null default 0;`);
    this.addSql(`create function "reports_touch_list_version"() returns trigger language plpgsql as $body$
begin
  if TG_OP = 'INSERT' then
    update users set reports_version = nextval('reports_version_seq') where id in (select user_id from new_rows);
  elsif TG_OP = 'DELETE' then
    update users set reports_version = nextval('reports_version_seq') where id in (select user_id from old_rows);
  else
    update users set reports_version = nextval('reports_version_seq')
      where id in (select user_id from old_rows union select user_id from new_rows);
  end if;
  return null;
end
$body$;`);
    this.addSql(
      `create trigger "reports_list_version_insert" after insert on "reports" referencing new table as new_rows for each statement execute function "reports_touch_list_version"();`,
    );
    this.addSql(
      `create trigger "reports_list_version_update" after update on "reports" referencing old table as old_rows new table as new_rows for each statement execute function "reports_touch_list_version"();`,
    );
    this.addSql(
      `create trigger "reports_list_version_delete" after delete on "reports" referencing old table as old_rows for each statement execute function "reports_touch_list_version"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger "reports_list_version_delete" on "reports";`);
    this.addSql(`drop trigger "reports_list_version_update" on "reports";`);
    this.addSql(`drop trigger "reports_list_version_insert" on "reports";`);
    this.addSql(`drop function "reports_touch_list_version"();`);
    this.addSql(`alter table "users" drop column "reports_version";`);
    this.addSql(`drop sequence "reports_version_seq";`);
  }
}
