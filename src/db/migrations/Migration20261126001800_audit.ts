// The audit trail (CONTRACT §18): one row per administrative change, written in the change's own transaction.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261126001800_audit extends Migration {
  override up(): void {
    // No foreign keys: an entry outlives its subject (a deleted app or car) and its actor.
    this.addSql(`create table "audit_entry" (
      "id" uuid primary key,
      "occurred_date_utc" timestamptz not null,
      "actor_id" uuid not null,
      "actor_type" varchar(32) not null check ("actor_type" in ('UserAccount', 'ClientApplication')),
      "action" varchar(64) not null,
      "subject_type" varchar(32) not null,
      "subject_id" uuid not null,
      "request_id" varchar(128) null)`);
    // The searches people run: a subject's history, an actor's changes, everything recent.
    this.addSql(
      'create index "audit_entry_subject_index" on "audit_entry" ("subject_id", "occurred_date_utc")',
    );
    this.addSql('create index "audit_entry_actor_index" on "audit_entry" ("actor_id", "occurred_date_utc")');
    this.addSql('create index "audit_entry_occurred_index" on "audit_entry" ("occurred_date_utc")');
  }
}
