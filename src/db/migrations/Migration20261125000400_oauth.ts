// The authorization server: client applications, what oidc-provider persists, remembered consent, keys, and
// the notifications that clear every instance's token cache.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261125000400_oauth extends Migration {
  override up(): void {
    this.addSql(`create table "client_application" (
      "id" uuid primary key,
      "name" varchar(100) not null,
      "description" text null,
      "client_id" varchar(64) not null unique,
      "secret_hash" varchar(128) not null,
      "grant_types" jsonb not null,
      "redirect_uris" jsonb not null,
      "allowed_scopes" jsonb not null,
      "allow_refresh" boolean not null default false,
      "is_first_party" boolean not null default false,
      "status" varchar(255) not null check ("status" in ('Active', 'Suspended')),
      "last_used_date_utc" timestamptz null,
      "created_date_utc" timestamptz not null,
      "last_modified_date_utc" timestamptz not null)`);
    this.addSql(
      'create index "client_application_created_date_utc_index" on "client_application" ("created_date_utc", "id")',
    );
    // At most one first-party (dashboard) client, so instances bootstrapping together create it once.
    this.addSql(
      'create unique index "client_application_first_party_unique" on "client_application" ("is_first_party") where "is_first_party"',
    );

    // Everything oidc-provider persists, one row per (model, id). Bearer values (tokens, codes, session ids) are
    // stored only as their SHA-256; consume is a conditional update (see the adapter).
    this.addSql(`create table "oauth_model" (
      "model" varchar(64) not null,
      "id" varchar(128) not null,
      "payload" jsonb not null,
      "grant_id" varchar(128) null,
      "uid" varchar(128) null,
      "user_code" varchar(128) null,
      "client_id" varchar(64) generated always as ("payload" ->> 'clientId') stored,
      "account_id" varchar(64) generated always as ("payload" ->> 'accountId') stored,
      "expires_at" timestamptz null,
      "consumed_at" timestamptz null,
      primary key ("model", "id"))`);
    this.addSql(
      'create index "oauth_model_grant_index" on "oauth_model" ("grant_id") where "grant_id" is not null',
    );
    this.addSql(
      'create unique index "oauth_model_uid_unique" on "oauth_model" ("model", "uid") where "uid" is not null',
    );
    this.addSql(
      'create unique index "oauth_model_user_code_unique" on "oauth_model" ("model", "user_code") where "user_code" is not null',
    );
    this.addSql('create index "oauth_model_expires_index" on "oauth_model" ("expires_at")');
    this.addSql(
      'create index "oauth_model_client_index" on "oauth_model" ("client_id") where "client_id" is not null',
    );
    this.addSql(
      'create index "oauth_model_account_index" on "oauth_model" ("account_id") where "account_id" is not null',
    );

    // Consent remembered per (user, app) until the user disconnects the app (CONTRACT §9).
    this.addSql(`create table "oauth_consent" (
      "account_id" uuid not null references "user_account" ("id") on delete cascade deferrable initially deferred,
      "client_application_id" uuid not null references "client_application" ("id") on delete cascade deferrable initially deferred,
      "scope" text not null,
      "granted_date_utc" timestamptz not null,
      primary key ("account_id", "client_application_id"))`);

    // Signing keys (private JWKs), cookie keys and the key first-party secrets derive from: created once, shared by
    // every instance.
    this.addSql(`create table "oauth_key" (
      "kind" varchar(32) not null check ("kind" in ('signing', 'cookie', 'derivation')),
      "id" varchar(64) not null,
      "material" jsonb not null,
      "created_date_utc" timestamptz not null,
      primary key ("kind", "id"))`);

    // Token-cache invalidation for every instance (LISTEN carshare_auth): a live token, grant, account or app that
    // stops being valid. NOTIFY is transactional, so nothing is announced for a change that rolls back.
    this.addSql(`create function "carshare_auth_notify_model"() returns trigger language plpgsql as $$
      begin
        if old."expires_at" is null or old."expires_at" > now() then
          if old."model" in ('AccessToken', 'ClientCredentials') then
            perform pg_notify('carshare_auth', 'token:' || old."id");
          elsif old."model" = 'Grant' then
            perform pg_notify('carshare_auth', 'grant:' || old."id");
          end if;
        end if;
        return null;
      end $$`);
    this.addSql(`create trigger "oauth_model_notify" after delete on "oauth_model"
      for each row when (old."model" in ('AccessToken', 'ClientCredentials', 'Grant'))
      execute function "carshare_auth_notify_model"()`);

    this.addSql(`create function "carshare_auth_notify_account"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('carshare_auth', 'account:' || old."id");
        return null;
      end $$`);
    this.addSql(`create trigger "user_account_notify" after update of "status", "roles" or delete on "user_account"
      for each row execute function "carshare_auth_notify_account"()`);

    this.addSql(`create function "carshare_auth_notify_client"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('carshare_auth', 'client:' || old."client_id");
        return null;
      end $$`);
    this.addSql(`create trigger "client_application_notify" after update of "status", "client_id" or delete
      on "client_application" for each row execute function "carshare_auth_notify_client"()`);
  }
}
