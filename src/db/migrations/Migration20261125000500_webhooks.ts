// Webhooks: subscriptions, one delivery per (event, subscription), its attempt log, the secret-encryption key,
// and the NOTIFY that wakes the fan-out when an outbox event commits.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261125000500_webhooks extends Migration {
  override up(): void {
    // Secrets are AES-GCM ciphertexts (see src/webhooks/secret.ts); a deleted subscription is kept (its
    // deliveries stay readable to ops) with its secrets wiped.
    this.addSql(`create table "webhook_subscription" (
      "id" uuid primary key,
      "name" varchar(100) not null,
      "event" varchar(64) not null,
      "url" varchar(2048) not null,
      "content_type" varchar(64) not null,
      "secret" text null,
      "previous_secret" text null,
      "previous_secret_expires_date_utc" timestamptz null,
      "is_active" boolean not null,
      "disabled_reason" varchar(16) null check ("disabled_reason" in ('Manual', 'Failing', 'Gone')),
      "consecutive_failures" int not null default 0,
      "failing_since_date_utc" timestamptz null,
      "last_success_date_utc" timestamptz null,
      "last_failure_date_utc" timestamptz null,
      "receives_all" boolean not null,
      "created_by_id" varchar(255) not null,
      "created_date_utc" timestamptz not null,
      "last_modified_date_utc" timestamptz not null,
      "deleted_date_utc" timestamptz null)`);
    this.addSql(
      'create unique index "webhook_subscription_owner_event_url_unique" on "webhook_subscription" ("created_by_id", "event", "url") where "deleted_date_utc" is null',
    );
    this.addSql(
      'create index "webhook_subscription_event_index" on "webhook_subscription" ("event") where "deleted_date_utc" is null',
    );

    // The delivery id is the 32-hex X-Webhook-Delivery value; (event, subscription) is unique so fan-out is
    // idempotent. A claimed delivery carries a lease (locked_by, locked_until_utc) instead of a held lock.
    this.addSql(`create table "webhook_delivery" (
      "id" char(32) primary key,
      "subscription_id" uuid not null references "webhook_subscription" ("id") on delete cascade deferrable initially deferred,
      "event_id" uuid not null,
      "event" varchar(64) not null,
      "body" text not null,
      "status" varchar(16) not null check ("status" in ('Pending', 'Succeeded', 'Failed', 'Skipped', 'Cancelled')),
      "attempt_count" int not null default 0,
      "next_attempt_date_utc" timestamptz null,
      "manual" boolean not null default false,
      "locked_by" varchar(64) null,
      "locked_until_utc" timestamptz null,
      "occurred_date_utc" timestamptz not null,
      "created_date_utc" timestamptz not null,
      "last_modified_date_utc" timestamptz not null,
      unique ("event_id", "subscription_id"))`);
    this.addSql(
      `create index "webhook_delivery_due_index" on "webhook_delivery" ("next_attempt_date_utc") where "status" = 'Pending'`,
    );
    this.addSql(
      'create index "webhook_delivery_subscription_index" on "webhook_delivery" ("subscription_id", "created_date_utc")',
    );

    this.addSql(`create table "webhook_attempt" (
      "id" uuid primary key,
      "delivery_id" char(32) not null references "webhook_delivery" ("id") on delete cascade deferrable initially deferred,
      "number" int not null,
      "trigger" varchar(16) not null check ("trigger" in ('Scheduled', 'Manual')),
      "attempted_date_utc" timestamptz not null,
      "status_code" int null,
      "error" text null,
      "duration_ms" int not null,
      "request_id" varchar(80) not null,
      "url" varchar(2048) not null,
      "response_body" text null)`);
    this.addSql(
      'create index "webhook_attempt_delivery_index" on "webhook_attempt" ("delivery_id", "number")',
    );

    // One data key per database, made on first use; subscription secrets are encrypted with it.
    this.addSql(`create table "webhook_secret_key" (
      "id" int primary key check ("id" = 1),
      "key" text not null,
      "created_date_utc" timestamptz not null)`);

    // NOTIFY is transactional: listeners hear it only when the event's transaction commits.
    this.addSql(`create function "webhook_notify_outbox"() returns trigger language plpgsql as $$
      begin perform pg_notify('carshare_outbox', ''); return null; end $$`);
    this.addSql(`create trigger "outbox_event_notify" after insert on "outbox_event"
      for each statement execute function "webhook_notify_outbox"()`);
  }
}
