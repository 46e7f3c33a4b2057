import { Migration } from '@mikro-orm/migrations';

export class Migration20261126120000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "audits" ("id" serial primary key, "user_id" int not null, "url" varchar(2048) not null, "project" varchar(253) not null, "max_pages" int not null, "render" boolean null, "include" jsonb not null, "exclude" jsonb not null, "schedule" varchar(128) null, "timezone" varchar(64) null, "status" varchar(16) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "audits_user_id_id_index" on "audits" ("user_id", "id");`);

    this.addSql(
      `create table "audit_runs" ("id" serial primary key, "audit_id" int not null, "status" varchar(16) not null, "total" int not null default 0, "done" int not null default 0, "failed" int not null default 0, "summary" jsonb null, "changes" jsonb null, "error" varchar(512) null, "started_at" timestamptz null, "finished_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "audit_runs_audit_id_id_index" on "audit_runs" ("audit_id", "id");`);

    this.addSql(
      `create table "audit_pages" ("id" serial primary key, "run_id" int not null, "url" varchar(2048) not null, "status" varchar(16) not null, "report_id" int null, "score" smallint null, "result" varchar(8) null, "failing" jsonb null, "error" varchar(512) null, "attempts" smallint not null default 0, "updated_at" timestamptz not null);`,
    );
    this.addSql(`alter table "audit_pages" add constraint "audit_pages_run_id_url_unique" unique ("run_id", "url");`);

    this.addSql(
      `create table "webhooks" ("id" serial primary key, "user_id" int not null, "url" varchar(2048) not null, "events" jsonb not null, "secret" varchar(64) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "webhooks_user_id_id_index" on "webhooks" ("user_id", "id");`);

    this.addSql(
      `create table "webhook_deliveries" ("id" serial primary key, "webhook_id" int not null, "message_id" varchar(64) not null, "event" varchar(32) not null, "payload" jsonb not null, "status" varchar(16) not null, "attempts" smallint not null default 0, "response_status" smallint null, "error" varchar(512) null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_message_id_unique" unique ("message_id");`,
    );
    this.addSql(`create index "webhook_deliveries_webhook_id_id_index" on "webhook_deliveries" ("webhook_id", "id");`);

    this.addSql(
      `alter table "audits" add constraint "audits_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "audit_runs" add constraint "audit_runs_audit_id_foreign" foreign key ("audit_id") references "audits" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "audit_pages" add constraint "audit_pages_run_id_foreign" foreign key ("run_id") references "audit_runs" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "audit_pages" add constraint "audit_pages_report_id_foreign" foreign key ("report_id") references "reports" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "webhooks" add constraint "webhooks_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "audit_runs" drop constraint "audit_runs_audit_id_foreign";`);

    this.addSql(`alter table "audit_pages" drop constraint "audit_pages_run_id_foreign";`);

    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_webhook_id_foreign";`);

    this.addSql(`drop table if exists "audits" cascade;`);

    this.addSql(`drop table if exists "audit_runs" cascade;`);

    this.addSql(`drop table if exists "audit_pages" cascade;`);

    this.addSql(`drop table if exists "webhooks" cascade;`);

    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
  }
}
