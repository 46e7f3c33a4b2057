import { Migration } from '@mikro-orm/migrations';

/**
 * Leases on the analyzer's per-key slots, held across every instance (issue 32): one row per
 * API key's account and slot while an analysis holds it, until `expires_at` (renewed while it
 * runs), so a stopped instance's slots free themselves (src/reports/shared-slots.ts).
 */
export class Migration20261126130000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "analyzer_slots" (
      "tenant" varchar(64) not null,
      "slot" smallint not null,
      "holder" uuid not null,
      "expires_at" timestamptz not null,
      constraint "analyzer_slots_pkey" primary key ("tenant", "slot"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "analyzer_slots";`);
  }
}
