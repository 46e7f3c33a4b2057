import { Migration } from '@mikro-orm/migrations';

/**
 * Each site's minimum score (src/captcha/siteverify.ts): siteverify refuses a token scoring
 * below it on every path. Existing sites get the default, 0.5, like new ones: work-only tokens
 * stop passing where the site did not lower it.
 */
export class Migration20261128120000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "sites" add column "min_score" double precision not null default 0.5;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "sites" drop column "min_score";`);
  }
}
