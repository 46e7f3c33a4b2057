import { Migration } from '@mikro-orm/migrations';

/**
 * Per-account limits on audits and webhooks (docs/isolation.md): the pages each account queued
 * per UTC day (its daily page budget, src/audits/page-budget.ts), and webhooks that a run of
 * failed deliveries disabled.
 */
export class Migration20261127010000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "audit_page_usage" (
      "user_id" int not null references "users" ("id") on update cascade on delete cascade,
      "day" date not null,
      "pages" int not null,
      constraint "audit_page_usage_pkey" primary key ("user_id", "day"));`);
    this.addSql(`alter table "webhooks"
      add column "failures_in_row" int not null default 0,
      add column "disabled_at" timestamptz null,
      add column "disabled_reason" varchar(512) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "audit_page_usage";`);
    this.addSql(`alter table "webhooks"
      drop column "failures_in_row", drop column "disabled_at", drop column "disabled_reason";`);
  }
}
