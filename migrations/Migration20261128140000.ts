import { Migration } from '@mikro-orm/migrations';

/**
 * Gateway mode (issue 45): a site may protect whole hosts behind a proxy's forward auth. Its
 * settings (host names, clearance lifetime, contact text, ordered rules) are one JSON value,
 * null for sites that do not use the gateway, so existing sites are unchanged.
 */
export class Migration20261128140000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "sites" add column "gateway" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "sites" drop column "gateway";`);
  }
}
