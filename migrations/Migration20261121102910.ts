import { Migration } from '@mikro-orm/migrations';

export class Migration20261121102910 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "sites" ("id" serial primary key, "owner_id" int not null, "name" varchar(200) not null, "sitekey" varchar(64) not null, "secret_prefix" varchar(16) not null, "secret_hash" varchar(64) not null, "origins" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "secret_rotated_at" timestamptz null);`,
    );
    this.addSql(`alter table "sites" add constraint "sites_sitekey_unique" unique ("sitekey");`);
    this.addSql(`alter table "sites" add constraint "sites_secret_prefix_unique" unique ("secret_prefix");`);
    this.addSql(`create index "sites_owner_id_id_index" on "sites" ("owner_id", "id");`);

    this.addSql(
      `alter table "sites" add constraint "sites_owner_id_foreign" foreign key ("owner_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "sites" cascade;`);
  }
}
