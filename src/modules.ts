// The subdomains the service is composed of, in dependency order.
import { accountsModule } from './accounts/accounts.resolvers.js';
import { OutboxEventSchema } from './events/outbox.entity.js';
import type { DomainModule } from './graphql/module.js';
import { ratingsModule } from './ratings/ratings.resolvers.js';
import { verificationsModule } from './verifications/verifications.resolvers.js';

const core: DomainModule = {
  name: 'core',
  entities: [OutboxEventSchema],
  resolvers: { Query: { _ping: () => true }, Mutation: { _ping: () => true } },
};

export const modules: DomainModule[] = [core, ratingsModule, verificationsModule, accountsModule];

export const entities = modules.flatMap((m) => m.entities);
