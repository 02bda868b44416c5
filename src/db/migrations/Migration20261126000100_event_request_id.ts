// The Request-Id of the request that raised an event, so each delivery attempt's log line can name it.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261126000100_event_request_id extends Migration {
  override up(): void {
    // Null for events raised by timers; adding a nullable column rewrites nothing.
    this.addSql('alter table "outbox_event" add column "request_id" varchar(128) null');
  }
}
