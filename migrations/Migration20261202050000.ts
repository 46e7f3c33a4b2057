import { Migration } from '@mikro-orm/migrations';

/**
 * A site's own say over which client networks count as hosting networks for the score
 * (src/net/hosting.ts): AS numbers added to the shipped list and AS numbers exempted from it.
 * Null for every existing site: the list as shipped.
 */
export class Migration20261202050000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "sites" add column "networks" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "sites" drop column "networks";`);
  }
}
