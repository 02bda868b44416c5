// Many car shares on one database (CONTRACT §24, §25): the car_share table, its default row owning every existing
// row, and in every table holding car share data a car_share_id that every key includes and that row-level security
// checks against the transaction's `carshare.car_share_id`.
import { Migration } from '@mikro-orm/migrations';

/**
 * Every table holding car share data: all the tables of the earlier migrations but `mikro_orm_migrations` (the
 * migrator's own, deployment-wide). `webhook_secret_key` and `oauth_key` become one data key and one key set per car
 * share (§21: keys are a car share's own); the default car share keeps today's.
 */
const TABLES = [
  'user_account',
  'profile',
  'verification',
  'rating',
  'outbox_event',
  'car',
  'unavailability',
  'feedback',
  'client_application',
  'oauth_model',
  'oauth_consent',
  'oauth_key',
  'webhook_subscription',
  'webhook_delivery',
  'webhook_attempt',
  'webhook_secret_key',
  'car_booking',
  'car_lock_command',
  'audit_entry',
] as const;

/** The car share of the transaction; null (so no row matches, and an insert fails not-null) outside any. */
const CURRENT = `nullif(current_setting('carshare.car_share_id', true), '')::uuid`;

/** Primary keys and unique constraints, rebuilt under their own names with car_share_id leading. */
const KEYS: readonly (readonly [
  table: string,
  name: string,
  kind: 'primary key' | 'unique',
  cols: string,
])[] = [
  ['user_account', 'user_account_pkey', 'primary key', '"id"'],
  // §20: a username is unique within its car share (the same rule as before: exact, case-sensitive).
  ['user_account', 'user_account_username_key', 'unique', '"username"'],
  ['profile', 'profile_pkey', 'primary key', '"id"'],
  ['profile', 'profile_user_id_key', 'unique', '"user_id"'],
  ['verification', 'verification_pkey', 'primary key', '"id"'],
  [
    'verification',
    'verification_subject_type_subject_id_kind_key',
    'unique',
    '"subject_type", "subject_id", "kind"',
  ],
  ['rating', 'rating_pkey', 'primary key', '"id"'],
  ['rating', 'rating_subject_type_subject_id_key', 'unique', '"subject_type", "subject_id"'],
  ['outbox_event', 'outbox_event_pkey', 'primary key', '"id"'],
  ['outbox_event', 'outbox_event_seq_key', 'unique', '"seq"'],
  ['car', 'car_pkey', 'primary key', '"id"'],
  ['unavailability', 'unavailability_pkey', 'primary key', '"id"'],
  ['feedback', 'feedback_pkey', 'primary key', '"id"'],
  ['feedback', 'feedback_car_booking_id_author_id_key', 'unique', '"car_booking_id", "author_id"'],
  ['client_application', 'client_application_pkey', 'primary key', '"id"'],
  // ClientIds stay unique across the deployment because they are random (generated, never chosen); a key on
  // client_id alone would break §24 rule 3.
  ['client_application', 'client_application_client_id_key', 'unique', '"client_id"'],
  ['oauth_model', 'oauth_model_pkey', 'primary key', '"model", "id"'],
  ['oauth_consent', 'oauth_consent_pkey', 'primary key', '"account_id", "client_application_id"'],
  ['oauth_key', 'oauth_key_pkey', 'primary key', '"kind", "id"'],
  ['webhook_subscription', 'webhook_subscription_pkey', 'primary key', '"id"'],
  ['webhook_delivery', 'webhook_delivery_pkey', 'primary key', '"id"'],
  [
    'webhook_delivery',
    'webhook_delivery_event_id_subscription_id_key',
    'unique',
    '"event_id", "subscription_id"',
  ],
  ['webhook_attempt', 'webhook_attempt_pkey', 'primary key', '"id"'],
  ['webhook_secret_key', 'webhook_secret_key_pkey', 'primary key', '"id"'],
  ['car_booking', 'car_booking_pkey', 'primary key', '"id"'],
  ['car_booking', 'car_booking_reference_key', 'unique', '"reference"'],
  ['car_lock_command', 'car_lock_command_pkey', 'primary key', '"id"'],
  ['audit_entry', 'audit_entry_pkey', 'primary key', '"id"'],
];

/** Unique indexes (partial ones, which a constraint cannot be), rebuilt under their own names. */
const UNIQUE_INDEXES: readonly (readonly [table: string, name: string, rest: string])[] = [
  // One first-party (dashboard) client per car share.
  [
    'client_application',
    'client_application_first_party_unique',
    '("is_first_party") where "is_first_party"',
  ],
  ['oauth_model', 'oauth_model_uid_unique', '("model", "uid") where "uid" is not null'],
  ['oauth_model', 'oauth_model_user_code_unique', '("model", "user_code") where "user_code" is not null'],
  // A caller's (event, url) is unique within its car share.
  [
    'webhook_subscription',
    'webhook_subscription_owner_event_url_unique',
    '("created_by_id", "event", "url") where "deleted_date_utc" is null',
  ],
];

/** Foreign keys between car share tables, rebuilt under their own names as (car_share_id, x) → (car_share_id, id). */
const FOREIGN_KEYS: readonly (readonly [table: string, name: string, column: string, target: string])[] = [
  ['profile', 'profile_user_id_fkey', 'user_id', 'user_account'],
  ['verification', 'verification_subject_user_id_fkey', 'subject_user_id', 'user_account'],
  ['car', 'car_owner_id_fkey', 'owner_id', 'user_account'],
  ['unavailability', 'unavailability_car_id_fkey', 'car_id', 'car'],
  ['feedback', 'feedback_author_id_fkey', 'author_id', 'user_account'],
  ['feedback', 'feedback_subject_user_id_fkey', 'subject_user_id', 'user_account'],
  ['oauth_consent', 'oauth_consent_account_id_fkey', 'account_id', 'user_account'],
  [
    'oauth_consent',
    'oauth_consent_client_application_id_fkey',
    'client_application_id',
    'client_application',
  ],
  ['webhook_delivery', 'webhook_delivery_subscription_id_fkey', 'subscription_id', 'webhook_subscription'],
  ['webhook_attempt', 'webhook_attempt_delivery_id_fkey', 'delivery_id', 'webhook_delivery'],
  ['car_booking', 'car_booking_borrower_id_fkey', 'borrower_id', 'user_account'],
  ['car_booking', 'car_booking_owner_id_fkey', 'owner_id', 'user_account'],
  ['car_lock_command', 'car_lock_command_car_id_fkey', 'car_id', 'car'],
];

const list = (names: readonly string[]) => `array[${names.map((n) => `'${n}'`).join(', ')}]`;

export class Migration20261128100000_car_shares extends Migration {
  override up(): void {
    this.addSql(`create table "car_share" (
      "id" uuid primary key,
      "base_url" varchar(2048) not null,
      "host" varchar(255) not null unique,
      "name" varchar(100) not null,
      "status" varchar(16) not null default 'Active' check ("status" in ('Active', 'Suspended')),
      "suspended_reason" varchar(1000) null,
      "suspended_date_utc" timestamptz null,
      "is_default" boolean not null default false,
      "limits" jsonb not null default '{}',
      "created_date_utc" timestamptz not null default now(),
      "last_modified_date_utc" timestamptz not null default now())`);
    this.addSql(
      'create unique index "car_share_default_unique" on "car_share" ("is_default") where "is_default"',
    );
    // The start-up code sets base_url and host from PUBLIC_URL, and (while it is '') the name.
    this.addSql(`insert into "car_share" ("id", "base_url", "host", "name", "is_default")
      values (gen_random_uuid(), 'https://localhost', 'localhost', '', true)`);

    // Every existing row becomes the default car share's. Added with the default id as a constant default, the
    // column is filled without rewriting the table; then the default becomes the transaction's car share.
    this.addSql(`do $$
      declare
        d uuid := (select "id" from "car_share" where "is_default");
        t text;
      begin
        foreach t in array ${list(TABLES)} loop
          execute format('alter table %I add column "car_share_id" uuid not null default %L', t, d);
          execute format('alter table %I alter column "car_share_id" set default ${CURRENT.replaceAll("'", "''")}', t);
          execute format('alter table %I add constraint %I foreign key ("car_share_id") references "car_share" ("id")',
            t, t || '_car_share_id_fkey');
        end loop;
      end $$`);

    // Keys: the foreign keys between car share tables go first (they hold on the keys they reference).
    for (const [table, name] of FOREIGN_KEYS) this.addSql(`alter table "${table}" drop constraint "${name}"`);
    for (const [table, name, kind, cols] of KEYS)
      this.addSql(
        `alter table "${table}" drop constraint "${name}", add constraint "${name}" ${kind} ("car_share_id", ${cols})`,
      );
    for (const [table, name, rest] of UNIQUE_INDEXES) {
      this.addSql(`drop index "${name}"`);
      this.addSql(`create unique index "${name}" on "${table}" ("car_share_id", ${rest.slice(1)}`);
    }
    // No two bookings of a car that hold it overlap — within the car's car share, which is every booking of it.
    this.addSql(`alter table "car_booking" drop constraint "car_booking_no_overlap",
      add constraint "car_booking_no_overlap" exclude using gist (
        "car_share_id" with =,
        "car_id" with =,
        tstzrange("start_date_utc", "end_date_utc", '[)') with &&
      ) where ("state" in ('Approved', 'InUse'))`);
    // PostgreSQL's foreign-key checks ignore row-level security: only a key naming the car share on both sides keeps
    // a row from pointing into another car share. Actions and deferral are as before.
    for (const [table, name, column, target] of FOREIGN_KEYS)
      this.addSql(`alter table "${table}" add constraint "${name}" foreign key ("car_share_id", "${column}")
        references "${target}" ("car_share_id", "id") on delete cascade deferrable initially deferred`);

    // Every other index serves lookups within one car share (a page, a party's listing, a car share's due work):
    // each is rebuilt under its name with car_share_id leading, its columns, expressions and predicate unchanged.
    this.addSql(`do $$
      declare
        r record;
      begin
        for r in
          select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def
            from pg_index i join pg_class t on t.oid = i.indrelid
           where t.relnamespace = current_schema()::regnamespace and t.relname = any (${list(TABLES)})
             and not i.indisunique and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
        loop
          if r.def !~ ' USING btree \\(' then
            raise exception 'index % is not a btree index: %', r.name, r.def;
          end if;
          execute format('drop index %s', r.name);
          execute regexp_replace(r.def, ' USING btree \\(', ' USING btree ("car_share_id", ');
        end loop;
      end $$`);

    // Row-level security, forced so that it binds the tables' owner too; one permissive policy each.
    for (const table of TABLES) {
      this.addSql(`alter table "${table}" enable row level security, force row level security`);
      this.addSql(`create policy "car_share_isolation" on "${table}" as permissive for all
        using ("car_share_id" = ${CURRENT}) with check ("car_share_id" = ${CURRENT})`);
    }
    this.addSql('alter table "car_share" enable row level security, force row level security');
    this.addSql(`create policy "car_share_isolation" on "car_share" as permissive for all
      using ("id" = ${CURRENT}) with check ("id" = ${CURRENT})`);

    // §24 rule 3, checked on what was built: a key or foreign key this migration did not know of fails the upgrade
    // here instead of leaving a key that crosses car shares.
    this.addSql(`do $$
      declare
        r record;
      begin
        for r in
          select c.conrelid::regclass::text as tab, c.conname, c.contype from pg_constraint c
           where c.conrelid = any (select t::regclass from unnest(${list(TABLES)}) t)
             and c.contype in ('p', 'u', 'x', 'f')
             and not ((select attnum from pg_attribute where attrelid = c.conrelid and attname = 'car_share_id')
               = any (c.conkey))
          union all
          select c.conrelid::regclass::text, c.conname, c.contype from pg_constraint c
           where c.contype = 'f' and c.confrelid <> 'car_share'::regclass
             and c.confrelid = any (select t::regclass from unnest(${list(TABLES)}) t)
             and not ((select attnum from pg_attribute where attrelid = c.confrelid and attname = 'car_share_id')
               = any (c.confkey))
          union all
          select i.indrelid::regclass::text, i.indexrelid::regclass::text, 'i' from pg_index i
           where i.indisunique and i.indrelid = any (select t::regclass from unnest(${list(TABLES)}) t)
             and not ((select attnum from pg_attribute where attrelid = i.indrelid and attname = 'car_share_id')
               = any (i.indkey::int2[]))
        loop
          raise exception 'the key % of % does not include car_share_id', r.conname, r.tab;
        end loop;
      end $$`);
  }
}
