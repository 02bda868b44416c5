// Car bookings, with the exclusion constraint that makes a double booking impossible, and lock commands.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261125000600_bookings extends Migration {
  override up(): void {
    // btree_gist lets one GiST index hold the car id (equality) beside the period (overlap).
    this.addSql('create extension if not exists btree_gist');
    // car_id has no foreign key: deleting a car (allowed once its bookings are finished) keeps their history.
    this.addSql(`create table "car_booking" (
      "id" uuid primary key,
      "reference" varchar(8) not null unique check ("reference" ~ '^[A-Z2-9]{8}$'),
      "car_id" uuid not null,
      "borrower_id" uuid not null references "user_account" ("id") on delete cascade deferrable initially deferred,
      "owner_id" uuid not null references "user_account" ("id") on delete cascade deferrable initially deferred,
      "state" varchar(16) not null check ("state" in
        ('Pending', 'Approved', 'Declined', 'Expired', 'Cancelled', 'InUse', 'Returned', 'Completed')),
      "start_date_utc" timestamptz not null,
      "end_date_utc" timestamptz not null,
      "message" text null check (char_length("message") <= 1000),
      "requested_date_utc" timestamptz not null,
      "approved_date_utc" timestamptz null,
      "declined_date_utc" timestamptz null,
      "expired_date_utc" timestamptz null,
      "cancelled_date_utc" timestamptz null,
      "used_date_utc" timestamptz null,
      "returned_date_utc" timestamptz null,
      "completed_date_utc" timestamptz null,
      "cancellation_reason" text null check (char_length("cancellation_reason") <= 1000),
      "decline_reason" text null check (char_length("decline_reason") <= 1000),
      "is_no_show" boolean not null default false,
      "hourly_rate_amount" numeric(12,2) not null check ("hourly_rate_amount" >= 0),
      "hourly_rate_currency" char(3) not null,
      "created_date_utc" timestamptz not null,
      "last_modified_date_utc" timestamptz not null,
      check ("start_date_utc" < "end_date_utc"),
      check ("borrower_id" <> "owner_id"),
      -- No two bookings of a car that hold it (Approved, InUse) overlap; half-open, so back-to-back is fine.
      constraint "car_booking_no_overlap" exclude using gist (
        "car_id" with =,
        tstzrange("start_date_utc", "end_date_utc", '[)') with &&
      ) where ("state" in ('Approved', 'InUse')))`);
    // Each listing leads with its party, then the default sort (start) and the tie-breaker.
    for (const [name, columns] of [
      ['car', '"car_id", "start_date_utc", "id"'],
      ['borrower', '"borrower_id", "start_date_utc", "id"'],
      ['owner', '"owner_id", "start_date_utc", "id"'],
      ['start', '"start_date_utc", "id"'],
      ['created', '"created_date_utc", "id"'],
    ] as const)
      this.addSql(`create index "car_booking_${name}_index" on "car_booking" (${columns})`);
    // What the timers look for: one small partial index per kind of due booking.
    this.addSql(
      `create index "car_booking_pending_due_index" on "car_booking" ("start_date_utc") where "state" = 'Pending'`,
    );
    this.addSql(
      `create index "car_booking_approved_due_index" on "car_booking" ("end_date_utc") where "state" = 'Approved'`,
    );
    this.addSql(
      `create index "car_booking_returned_due_index" on "car_booking" ("returned_date_utc") where "state" = 'Returned'`,
    );

    this.addSql(`create table "car_lock_command" (
      "id" uuid primary key,
      "car_id" uuid not null references "car" ("id") on delete cascade deferrable initially deferred,
      "command" varchar(8) not null check ("command" in ('Lock', 'Unlock')),
      "requested_by_id" uuid null,
      "issued_date_utc" timestamptz not null,
      "result_lock_state" varchar(16) not null check ("result_lock_state" in ('Locked', 'Unlocked')),
      "confirmed_date_utc" timestamptz not null)`);
    this.addSql(
      'create index "car_lock_command_car_index" on "car_lock_command" ("car_id", "issued_date_utc")',
    );
  }
}
