import { Migration } from '@mikro-orm/migrations';

export class Migration20261121102252 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "reports" ("id" serial primary key, "user_id" int not null, "url" varchar(2048) not null, "project" varchar(253) not null, "result" varchar(8) not null, "score" smallint not null, "results" jsonb not null, "privacy" smallint not null default 1, "password_hash" varchar(255) null, "generated_at" timestamptz not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "reports_user_id_id_index" on "reports" ("user_id", "id");`);
    this.addSql(`create index "reports_user_id_generated_at_id_index" on "reports" ("user_id", "generated_at", "id");`);
    this.addSql(`create index "reports_user_id_url_id_index" on "reports" ("user_id", "url", "id");`);
    this.addSql(`create index "reports_user_id_score_id_index" on "reports" ("user_id", "score", "id");`);
    this.addSql(`create index "reports_user_id_project_id_index" on "reports" ("user_id", "project", "id");`);
    this.addSql(`create index "reports_user_id_result_id_index" on "reports" ("user_id", "result", "id");`);
    this.addSql(`create index "reports_url_trgm" on "reports" using gin ("url" gin_trgm_ops);`);

    this.addSql(
      `create table "projects" ("id" serial primary key, "user_id" int not null, "name" varchar(253) not null, "reports_count" int not null default 0, "score_sum" bigint not null default 0, "good_count" int not null default 0, "decent_count" int not null default 0, "bad_count" int not null default 0, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "projects_user_id_created_at_id_index" on "projects" ("user_id", "created_at", "id");`);
    this.addSql(`create index "projects_name_trgm" on "projects" using gin ("name" gin_trgm_ops);`);
    this.addSql(`alter table "projects" add constraint "projects_user_id_name_unique" unique ("user_id", "name");`);

    this.addSql(
      `alter table "reports" add constraint "reports_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "projects" add constraint "projects_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "reports" cascade;`);

    this.addSql(`drop table if exists "projects" cascade;`);
  }
}
