import { Migration } from '@mikro-orm/migrations';

export class Migration20261121101430 extends Migration {
  override async up(): Promise<void> {
    // Trigram matching backs the case-insensitive substring searches (PGlite loads it too).
    this.addSql(`create extension if not exists pg_trgm;`);

    this.addSql(
      `create table "users" ("id" serial primary key, "name" varchar(200) not null, "email" varchar(320) null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(
      `create table "api_keys" ("id" serial primary key, "user_id" int not null, "name" varchar(200) not null, "prefix" varchar(16) not null, "hash" varchar(64) not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null);`,
    );
    this.addSql(`alter table "api_keys" add constraint "api_keys_prefix_unique" unique ("prefix");`);

    this.addSql(
      `alter table "api_keys" add constraint "api_keys_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "api_keys" drop constraint "api_keys_user_id_foreign";`);

    this.addSql(`drop table if exists "users" cascade;`);

    this.addSql(`drop table if exists "api_keys" cascade;`);
  }
}
