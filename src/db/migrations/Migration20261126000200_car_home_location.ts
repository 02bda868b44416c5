// The index of the car search by distance (CONTRACT §17): the bounding box of `near` is a latitude range and one
// or two longitude ranges, answered from (home_latitude, home_longitude) instead of reading every car.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261126000200_car_home_location extends Migration {
  override up(): void {
    this.addSql('create index "car_home_location_index" on "car" ("home_latitude", "home_longitude")');
  }
}
