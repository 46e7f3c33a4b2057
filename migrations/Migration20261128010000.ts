import { Migration } from '@mikro-orm/migrations';

/**
 * Each audited page's accessibility score (issue 44): the category's own score of a rendered
 * page, null when the page was not rendered (or no rule applied), for the run's summary.
 */
export class Migration20261128010000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "audit_pages" add column "accessibility_score" smallint null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "audit_pages" drop column "accessibility_score";`);
  }
}
