// Cars and their unavailabilities, with an index for every sort and filter the searches accept.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261125000200_cars extends Migration {
  override up(): void {
    this.addSql(`create table "car" (
      "id" uuid primary key,
      "owner_id" uuid not null references "user_account" ("id") on delete cascade deferrable initially deferred,
      "make" varchar(50) not null,
      "model" varchar(50) not null,
      "year" int not null check ("year" >= 1900),
      "color" varchar(50) null,
      "transmission" varchar(16) not null check ("transmission" in ('Automatic', 'Manual')),
      "seats" int not null check ("seats" between 1 and 9),
      "description" text null,
      "license_plate_jurisdiction" varchar(100) not null,
      "license_plate_number" varchar(20) not null,
      "home_address" varchar(500) not null,
      "home_latitude" double precision not null check ("home_latitude" between -90 and 90),
      "home_longitude" double precision not null check ("home_longitude" between -180 and 180),
      "hourly_rate_amount" numeric(12,2) not null check ("hourly_rate_amount" >= 0),
      "hourly_rate_currency" char(3) not null,
      "auto_approve" boolean not null default false,
      "minimum_booking_minutes" int not null check ("minimum_booking_minutes" >= 30),
      "maximum_booking_minutes" int not null
        check ("maximum_booking_minutes" <= 20160 and "maximum_booking_minutes" >= "minimum_booking_minutes"),
      "status" varchar(16) not null check ("status" in ('Draft', 'Listed', 'Unlisted')),
      "lock_state" varchar(16) not null default 'Locked' check ("lock_state" in ('Locked', 'Unlocked')),
      "lock_state_changed_date_utc" timestamptz null,
      "created_date_utc" timestamptz not null,
      "last_modified_date_utc" timestamptz not null)`);
    // One (column, id) index per sort (ties break on id); status and owner lead with the default sort after
    // them, since they are also filters (and owner_id serves UserAccount.isCarOwner).
    for (const [name, columns] of [
      ['created', '"created_date_utc", "id"'],
      ['last_modified', '"last_modified_date_utc", "id"'],
      ['make', '"make", "id"'],
      ['model', '"model", "id"'],
      ['year', '"year", "id"'],
      ['seats', '"seats", "id"'],
      ['hourly_rate', '"hourly_rate_amount", "id"'],
      ['status', '"status", "created_date_utc", "id"'],
      ['owner', '"owner_id", "created_date_utc", "id"'],
      // The make filter matches in any case.
      ['make_lower', 'lower("make"), "created_date_utc", "id"'],
    ] as const)
      this.addSql(`create index "car_${name}_index" on "car" (${columns})`);

    this.addSql(`create table "unavailability" (
      "id" uuid primary key,
      "car_id" uuid not null references "car" ("id") on delete cascade deferrable initially deferred,
      "start_date_utc" timestamptz not null,
      "end_date_utc" timestamptz not null,
      "reason" varchar(16) not null check ("reason" in ('Maintenance', 'Offline', 'Other')),
      "note" text null,
      "created_date_utc" timestamptz not null,
      "last_modified_date_utc" timestamptz not null,
      check ("start_date_utc" < "end_date_utc"))`);
    // Every listing is per car; (car_id, start_date_utc) also serves the overlap test of the bookable search.
    for (const [name, column] of [
      ['start', 'start_date_utc'],
      ['end', 'end_date_utc'],
      ['reason', 'reason'],
      ['created', 'created_date_utc'],
      ['last_modified', 'last_modified_date_utc'],
    ] as const)
      this.addSql(
        `create index "unavailability_${name}_index" on "unavailability" ("car_id", "${column}", "id")`,
      );
  }
}
