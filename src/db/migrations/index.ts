// Committed migrations, applied in this order. One file per change; never edit one that has shipped.
import { Migration20261125000100_core } from './Migration20261125000100_core.js';
import { Migration20261125000200_cars } from './Migration20261125000200_cars.js';
import { Migration20261125000300_feedback } from './Migration20261125000300_feedback.js';
import { Migration20261125000400_oauth } from './Migration20261125000400_oauth.js';
import { Migration20261125000500_webhooks } from './Migration20261125000500_webhooks.js';
import { Migration20261125000600_bookings } from './Migration20261125000600_bookings.js';
import { Migration20261126000100_event_request_id } from './Migration20261126000100_event_request_id.js';
import { Migration20261126000200_car_home_location } from './Migration20261126000200_car_home_location.js';
import { Migration20261126000200_webhook_subscription_notify } from './Migration20261126000200_webhook_subscription_notify.js';
import { Migration20261126001800_audit } from './Migration20261126001800_audit.js';
import { Migration20261128000700_audit_cli } from './Migration20261128000700_audit_cli.js';
import { Migration20261128090000_service_notifies } from './Migration20261128090000_service_notifies.js';
import { Migration20261128100000_car_shares } from './Migration20261128100000_car_shares.js';
import { Migration20261128200000_platform } from './Migration20261128200000_platform.js';

export const migrations = [
  { name: 'Migration20261125000100_core', class: Migration20261125000100_core },
  { name: 'Migration20261125000200_cars', class: Migration20261125000200_cars },
  { name: 'Migration20261125000300_feedback', class: Migration20261125000300_feedback },
  { name: 'Migration20261125000400_oauth', class: Migration20261125000400_oauth },
  { name: 'Migration20261125000500_webhooks', class: Migration20261125000500_webhooks },
  { name: 'Migration20261125000600_bookings', class: Migration20261125000600_bookings },
  { name: 'Migration20261126000100_event_request_id', class: Migration20261126000100_event_request_id },
  { name: 'Migration20261126000200_car_home_location', class: Migration20261126000200_car_home_location },
  { name: 'Migration20261126001800_audit', class: Migration20261126001800_audit },
  {
    name: 'Migration20261126000200_webhook_subscription_notify',
    class: Migration20261126000200_webhook_subscription_notify,
  },
  { name: 'Migration20261128000700_audit_cli', class: Migration20261128000700_audit_cli },
  { name: 'Migration20261128090000_service_notifies', class: Migration20261128090000_service_notifies },
  { name: 'Migration20261128100000_car_shares', class: Migration20261128100000_car_shares },
  { name: 'Migration20261128200000_platform', class: Migration20261128200000_platform },
];
