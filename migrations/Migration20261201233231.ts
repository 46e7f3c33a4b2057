import { Migration } from '@mikro-orm/migrations';

/**
 * One row per host a site protects in gateway mode, the host its primary key: two accounts
 * saving one host at once can no longer both win (the registry kept whichever it loaded
 * last). Existing settings fill it; where two sites already list one host, the older site
 * keeps it.
 */
export class Migration20261201233231 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "gateway_hosts" ("host" varchar(253) not null, "site_id" int not null, constraint "gateway_hosts_pkey" primary key ("host"));`,
    );
    this.addSql(
      `alter table "gateway_hosts" add constraint "gateway_hosts_site_id_foreign" foreign key ("site_id") references "sites" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`create index "gateway_hosts_site_id_index" on "gateway_hosts" ("site_id");`);
    this.addSql(
      `insert into "gateway_hosts" ("host", "site_id")
       select distinct on (h.host) h.host, s."id"
       from "sites" s, jsonb_array_elements_text(s."gateway"->'hosts') as h(host)
       where s."gateway" is not null and jsonb_typeof(s."gateway"->'hosts') = 'array'
       order by h.host, s."id";`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "gateway_hosts" cascade;`);
  }
}
