// Accounts, profiles, verifications, ratings and the outbox.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261125000100_core extends Migration {
  override up(): void {
    this.addSql(`create table "user_account" (
      "id" uuid primary key,
      "username" varchar(254) not null unique,
      "password_hash" varchar(255) not null,
      "roles" jsonb not null,
      "status" varchar(255) not null check ("status" in ('Active', 'Suspended')),
      "last_sign_in_date_utc" timestamptz null,
      "failed_sign_ins" int not null default 0,
      "locked_until_utc" timestamptz null,
      "created_date_utc" timestamptz not null,
      "last_modified_date_utc" timestamptz not null)`);
    this.addSql(
      'create index "user_account_created_date_utc_index" on "user_account" ("created_date_utc", "id")',
    );

    this.addSql(`create table "profile" (
      "id" uuid primary key,
      "user_id" uuid not null unique references "user_account" ("id") on delete cascade deferrable initially deferred,
      "first_name" varchar(100) not null,
      "last_name" varchar(100) not null,
      "display_name" varchar(100) not null,
      "phone_number" varchar(16) null,
      "description" text null,
      "avatar_url" varchar(2048) null,
      "created_date_utc" timestamptz not null,
      "last_modified_date_utc" timestamptz not null)`);

    this.addSql(`create table "verification" (
      "id" uuid primary key,
      "subject_type" varchar(255) not null check ("subject_type" in ('UserAccount', 'Car')),
      "subject_id" uuid not null,
      "subject_user_id" uuid not null references "user_account" ("id") on delete cascade deferrable initially deferred,
      "kind" varchar(255) not null,
      "status" varchar(255) not null check ("status" in ('Unverified', 'Pending', 'Verified', 'Rejected', 'Expired')),
      "evidence" jsonb null,
      "expires_date_utc" timestamptz null,
      "decided_date_utc" timestamptz null,
      "decided_by_id" uuid null,
      "reason" text null,
      "created_date_utc" timestamptz not null,
      "last_modified_date_utc" timestamptz not null,
      unique ("subject_type", "subject_id", "kind"))`);
    this.addSql('create index "verification_subject_user_id_index" on "verification" ("subject_user_id")');
    this.addSql(
      'create index "verification_status_created_index" on "verification" ("status", "created_date_utc")',
    );
    this.addSql(
      `create index "verification_expiry_index" on "verification" ("expires_date_utc") where "status" = 'Verified'`,
    );

    this.addSql(`create table "rating" (
      "id" uuid primary key,
      "subject_type" varchar(255) not null check ("subject_type" in ('UserAccount', 'Car')),
      "subject_id" uuid not null,
      "count" int not null,
      "average" numeric(2,1) null,
      "created_date_utc" timestamptz not null,
      "last_modified_date_utc" timestamptz not null,
      unique ("subject_type", "subject_id"))`);

    // seq orders events as they were recorded (ids are random; timestamps can tie).
    this.addSql(`create table "outbox_event" (
      "id" uuid primary key,
      "seq" bigserial not null unique,
      "name" varchar(255) not null,
      "payload" jsonb not null,
      "audience_user_ids" jsonb not null,
      "occurred_date_utc" timestamptz not null,
      "published_date_utc" timestamptz null)`);
    this.addSql(
      'create index "outbox_event_unpublished_index" on "outbox_event" ("occurred_date_utc") where "published_date_utc" is null',
    );
  }
}
