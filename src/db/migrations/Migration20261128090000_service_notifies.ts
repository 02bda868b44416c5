// No triggers on car share tables (CONTRACT §25): the service itself sends the notifications these triggers sent
// (token-cache invalidation on carshare_auth, outbox wake-ups on carshare_outbox, subscription changes on
// carshare_webhook_subscription), with the same channels and payloads, in the transaction of the change (see
// src/db/notify.ts). A distributed engine runs triggers on its workers, where NOTIFY reaches no listener of the
// coordinator and cannot be part of a two-phase commit.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128090000_service_notifies extends Migration {
  override up(): void {
    this.addSql('drop trigger if exists "oauth_model_notify" on "oauth_model"');
    this.addSql('drop trigger if exists "user_account_notify" on "user_account"');
    this.addSql('drop trigger if exists "client_application_notify" on "client_application"');
    this.addSql('drop trigger if exists "outbox_event_notify" on "outbox_event"');
    this.addSql('drop trigger if exists "webhook_subscription_notify" on "webhook_subscription"');
    this.addSql('drop function if exists "carshare_auth_notify_model"()');
    this.addSql('drop function if exists "carshare_auth_notify_account"()');
    this.addSql('drop function if exists "carshare_auth_notify_client"()');
    this.addSql('drop function if exists "webhook_notify_outbox"()');
    this.addSql('drop function if exists "webhook_notify_subscription"()');
  }
}
