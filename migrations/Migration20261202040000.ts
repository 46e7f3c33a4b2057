import { Migration } from '@mikro-orm/migrations';

/**
 * Budgets, repeated runs and regressions (docs/audits.md): a report's category summaries and
 * the median and spread of its runs' lab figures (columns of `reports`, computed when it is
 * stored; older reports have none and are summarised from their results when read); each
 * run's lab figures (`lab_samples`, one row per run of a report); an audit's budgets
 * (`audit_budgets`, one row per group of assertions); how many runs each audit page gets and
 * the run its regressions are tested against (columns of `audits`); each page's assertion
 * outcome (a column of `audit_pages`).
 */
export class Migration20261202040000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "reports" add column "categories" json null, add column "lab_stats" json null;`);
    this.addSql(
      `create table "lab_samples" ("id" serial primary key, "report_id" int not null, "run" smallint not null,
        "fcp" real null, "lcp" real null, "tbt" real null, "cls" real null, "score" real null, "bytes" real null);`,
    );
    this.addSql(
      `alter table "lab_samples" add constraint "lab_samples_report_id_foreign" foreign key ("report_id") references "reports" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`create index "lab_samples_report_id_index" on "lab_samples" ("report_id");`);
    this.addSql(
      `create table "audit_budgets" ("id" serial primary key, "audit_id" int not null, "position" smallint not null,
        "path" varchar(200) null, "url_pattern" varchar(200) null, "preset" varchar(32) null,
        "aggregation_method" varchar(16) null, "assertions" jsonb not null);`,
    );
    this.addSql(
      `alter table "audit_budgets" add constraint "audit_budgets_audit_id_foreign" foreign key ("audit_id") references "audits" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`create index "audit_budgets_audit_id_index" on "audit_budgets" ("audit_id");`);
    this.addSql(
      `alter table "audits" add column "runs" smallint not null default 1, add column "baseline_run_id" int null;`,
    );
    this.addSql(`alter table "audit_pages" add column "assertions" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "audit_pages" drop column "assertions";`);
    this.addSql(`alter table "audits" drop column "runs", drop column "baseline_run_id";`);
    this.addSql(`drop table if exists "audit_budgets" cascade;`);
    this.addSql(`drop table if exists "lab_samples" cascade;`);
    this.addSql(`alter table "reports" drop column "categories", drop column "lab_stats";`);
  }
}
