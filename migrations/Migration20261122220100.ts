import { Migration } from '@mikro-orm/migrations';

/**
 * Share pages under unguessable ids: `reports.share_id`, 22 base64url characters, unique.
 * The application sets 16 random bytes on create; the column default (122 random bits of
 * gen_random_uuid(), built into PostgreSQL 13+ and PGlite) covers any other insert and, being
 * volatile, gives every existing row its own id when the column is added.
 */
export class Migration20261122220100 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "reports" add column "share_id" varchar(22) not null default rtrim(translate(encode(decode(replace(gen_random_uuid()::text, '-', ''), 'hex'), 'base64'), '+/', '-_'), '=');`,
    );
    this.addSql(`alter table "reports" add constraint "reports_share_id_unique" unique ("share_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "reports" drop constraint "reports_share_id_unique";`);
    this.addSql(`alter table "reports" drop column "share_id";`);
  }
}
