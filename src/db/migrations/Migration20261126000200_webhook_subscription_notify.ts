// Webhook subscription changes announced to every instance (LISTEN carshare_webhook_subscription), so the
// delivery workers' cache of targets (URL, secrets, status) drops an entry the moment it changes.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261126000200_webhook_subscription_notify extends Migration {
  override up(): void {
    // NOTIFY is transactional: a change that rolls back announces nothing. Health counters are not cached and
    // change on every attempt, so they announce nothing either.
    this.addSql(`create function "webhook_notify_subscription"() returns trigger language plpgsql as $$
      begin perform pg_notify('carshare_webhook_subscription', old."id"::text); return null; end $$`);
    this.addSql(`create trigger "webhook_subscription_notify" after update of "url", "secret", "previous_secret",
      "previous_secret_expires_date_utc", "is_active", "deleted_date_utc" or delete on "webhook_subscription"
      for each row execute function "webhook_notify_subscription"()`);
  }
}
