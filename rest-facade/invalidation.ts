// The one place the REST cache is made stale. The GraphQL server tells it the root fields of every mutation that
// ran, whichever way it came (the facade's own writes, /graphql, the dashboard), and it bumps the tags the REST
// row of each mutation names — or, for a mutation no row exposes, every resource its result reaches. Only in the car
// share the mutation ran in: a write there makes nothing stale in another (CONTRACT §20).
import { type GraphQLSchema, getNamedType } from 'graphql';
import type { ResponseCache } from './cache.js';
import type { RouteModule } from './route.types.js';
import { routeModules } from './routes/index.js';
import { platformRoutes } from './routes/platform.routes.js';
import { isResource, reachable, resultShape } from './schema.model.js';
import { invalidatedBy } from './table.js';

export function staleAfterMutations(
  schema: GraphQLSchema,
  cache: ResponseCache,
  // Every facade's rows: the platform API's mutations run in the default car share's schema like the others.
  routes: readonly RouteModule[] = [...routeModules, platformRoutes],
): (mutations: readonly string[], carShareId: string) => Promise<void> {
  const writes = new Map(
    routes.flatMap((m) => m.routes).flatMap((d) => (d.method === 'GET' ? [] : [[d.operation, d] as const])),
  );
  const known = new Map<string, readonly string[]>();
  const tagsOf = (mutation: string): readonly string[] => {
    let tags = known.get(mutation);
    if (tags) return tags;
    const field = schema.getMutationType()?.getFields()[mutation];
    const def = writes.get(mutation);
    const node = field && getNamedType(field.type);
    tags =
      field && def
        ? invalidatedBy(def, resultShape(field).node)
        : node && isResource(node)
          ? [...reachable(node)]
          : [];
    if (field) known.set(mutation, tags);
    return tags;
  };
  return async (mutations, carShareId) => {
    const tags = [...new Set(mutations.flatMap(tagsOf))];
    if (tags.length > 0) await cache.invalidate(carShareId, tags);
  };
}
