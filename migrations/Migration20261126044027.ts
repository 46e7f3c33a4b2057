import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 29, the console: its sessions (hashed, tied to the API key that opened them, cascade
 * with it) and the challenge analytics' minute buckets (src/analytics), both new tables.
 */
export class Migration20261126044027 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "challenge_stats" ("bucket" timestamptz not null, "sitekey" varchar(64) not null, "metric" varchar(16) not null, "label" varchar(64) not null, "count" int not null, constraint "challenge_stats_pkey" primary key ("bucket", "sitekey", "metric", "label"));`,
    );
    this.addSql(`create index "challenge_stats_sitekey_bucket_index" on "challenge_stats" ("sitekey", "bucket");`);

    this.addSql(
      `create table "console_sessions" ("id" serial primary key, "api_key_id" int not null, "prefix" varchar(16) not null, "hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null);`,
    );
    this.addSql(`create index "console_sessions_api_key_id_index" on "console_sessions" ("api_key_id");`);
    this.addSql(`alter table "console_sessions" add constraint "console_sessions_prefix_unique" unique ("prefix");`);
    this.addSql(`create index "console_sessions_expires_at_index" on "console_sessions" ("expires_at");`);

    this.addSql(
      `alter table "console_sessions" add constraint "console_sessions_api_key_id_foreign" foreign key ("api_key_id") references "api_keys" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "challenge_stats" cascade;`);

    this.addSql(`drop table if exists "console_sessions" cascade;`);
  }
}
