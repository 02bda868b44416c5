// Feedback about users and cars; the rating aggregate (core migration) is recomputed from these rows.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261125000300_feedback extends Migration {
  override up(): void {
    // car_booking_id gets its foreign key with the bookings table; the unique pair is what stops a second
    // feedback per booking and author even when two requests race.
    this.addSql(`create table "feedback" (
      "id" uuid primary key,
      "car_booking_id" uuid not null,
      "author_id" uuid not null references "user_account" ("id") on delete cascade deferrable initially deferred,
      "subject_type" varchar(255) not null check ("subject_type" in ('UserAccount', 'Car')),
      "subject_id" uuid not null,
      "subject_user_id" uuid not null references "user_account" ("id") on delete cascade deferrable initially deferred,
      "rating" int not null check ("rating" between 1 and 5),
      "comment" text null check (char_length("comment") <= 1000),
      "created_date_utc" timestamptz not null,
      "last_modified_date_utc" timestamptz not null,
      unique ("car_booking_id", "author_id"))`);
    this.addSql(
      'create index "feedback_subject_index" on "feedback" ("subject_type", "subject_id", "created_date_utc")',
    );
    this.addSql('create index "feedback_created_date_utc_index" on "feedback" ("created_date_utc", "id")');
  }
}
