// CONTRACT §27: the admin command line and the platform change things too; neither has an actor id.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128000700_audit_cli extends Migration {
  override up(): void {
    this.addSql('alter table "audit_entry" alter column "actor_id" drop not null');
    // The check PostgreSQL named when the table was created with it inline.
    this.addSql('alter table "audit_entry" drop constraint if exists "audit_entry_actor_type_check"');
    this.addSql(`alter table "audit_entry" add constraint "audit_entry_actor_type_check"
      check ("actor_type" in ('UserAccount', 'ClientApplication', 'Cli', 'Platform'))`);
    // Only an operator or an application is named by id; the others never are.
    this.addSql(`alter table "audit_entry" add constraint "audit_entry_actor_id_check"
      check (("actor_id" is null) = ("actor_type" in ('Cli', 'Platform')))`);
  }
}
