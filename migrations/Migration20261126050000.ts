import { Migration } from '@mikro-orm/migrations';

/**
 * Sites choose what siteverify does with a `remoteip` on another network than the token was
 * solved from (issue 27): `enforce` (the default: refused with `remoteip-mismatch`), `score`
 * (passes with a low score) or `off`.
 */
export class Migration20261126050000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "sites" add column "remoteip_check" varchar(16) not null default 'enforce';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "sites" drop column "remoteip_check";`);
  }
}
