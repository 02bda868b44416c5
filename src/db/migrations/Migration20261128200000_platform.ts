// CONTRACT §22, §23, §24: the platform's own audit trail, and deleted car shares waiting for their rows to be purged.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128200000_platform extends Migration {
  override up(): void {
    // A platform table (§24 rule 1): it names the car share an entry is about in `about_car_share_id`, never in
    // `car_share_id`, and has no foreign key to it, so the entry outlives the car share it records deleting.
    this.addSql(`create table "platform_audit_entry" (
      "id" uuid primary key,
      "occurred_date_utc" timestamptz not null,
      "actor_id" uuid null,
      "actor_type" varchar(32) not null check ("actor_type" in ('UserAccount', 'ClientApplication', 'Cli')),
      "action" varchar(64) not null,
      "subject_type" varchar(32) not null,
      "subject_id" uuid not null,
      "request_id" varchar(128) null,
      "about_car_share_id" uuid not null)`);
    this.addSql(
      'create index "platform_audit_entry_occurred" on "platform_audit_entry" ("occurred_date_utc" desc, "id")',
    );
    this.addSql(
      'create index "platform_audit_entry_about" on "platform_audit_entry" ("about_car_share_id", "occurred_date_utc")',
    );
    // A deleted car share keeps its row (its rows' foreign keys need it) until the purge has removed them; its host
    // is released at once (renamed under `.invalid`), so a new car share may take it.
    this.addSql('alter table "car_share" add column "deleted_date_utc" timestamptz null');
  }
}
