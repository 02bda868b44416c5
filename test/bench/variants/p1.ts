// P1, the idiomatic peer: Koa + Apollo Server + MikroORM entities, written the way tutorials show it — field
// resolvers that query per parent (no DataLoader), a token looked up in the database on every request, the
// ETag hashed from the finished body (koa-etag style), no caching. Same schema, same answers as the service.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { ApolloServer } from '@apollo/server';
import { koaMiddleware } from '@as-integrations/koa';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type { EntityManager } from '@mikro-orm/postgresql';
import Koa from 'koa';
import { Profile } from '../../../src/accounts/profile.entity.js';
import { Car } from '../../../src/cars/car.entity.js';
import { openOrm } from '../../../src/db/orm.js';
import { CAR_SHARE_FILTER } from '../../../src/db/scope.js';
import { DateTime, JSONScalar, UUIDScalar } from '../../../src/graphql/scalars.js';
import { loadTypeDefs } from '../../../src/graphql/schema.js';
import { entities } from '../../../src/modules.js';
import { Rating } from '../../../src/ratings/rating.entity.js';
import { emptyRating } from '../../../src/ratings/rating.loaders.js';
import { Verification } from '../../../src/verifications/verification.entity.js';
import { carDocuments, sdlSchema } from '../documents.js';

interface Ctx {
  em: EntityManager;
}
type Subject = 'Car' | 'UserAccount';

const ratingOf = async (em: EntityManager, subjectType: Subject, subjectId: string) =>
  (await em.findOne(Rating, { subjectType, subjectId })) ?? emptyRating({ subjectType, subjectId });

const schema = makeExecutableSchema<Ctx>({
  typeDefs: loadTypeDefs(),
  resolvers: {
    DateTime,
    JSON: JSONScalar,
    UUID: UUIDScalar,
    Query: {
      cars: async (_: unknown, a: { limit?: number; offset?: number }, { em }: Ctx) => {
        const limit = a.limit ?? 100;
        const offset = a.offset ?? 0;
        const [nodes, total] = await em.findAndCount(
          Car,
          {},
          { orderBy: { createdDateUtc: 'desc', id: 'desc' }, limit, offset },
        );
        const sort = { by: 'createdDateUtc', direction: 'Descending' };
        return { total, limit, offset, sort, distinct: null, nodes };
      },
      car: (_: unknown, { id }: { id: string }, { em }: Ctx) => em.findOneOrFail(Car, { id }),
    },
    Car: {
      licensePlate: (c: Car) => ({ jurisdiction: c.licensePlateJurisdiction, number: c.licensePlateNumber }),
      homeLocation: (c: Car) => ({
        address: c.homeAddress,
        latitude: c.homeLatitude,
        longitude: c.homeLongitude,
      }),
      hourlyRate: (c: Car) => ({ amount: c.hourlyRateAmount, currency: c.hourlyRateCurrency }),
      isVerified: async (c: Car, _: unknown, { em }: Ctx) =>
        (await em.count(Verification, {
          subjectType: 'Car',
          subjectId: c.id,
          kind: { $in: ['LicensePlate', 'RoadWorthiness'] },
          status: 'Verified',
        })) === 2,
      rating: (c: Car, _: unknown, { em }: Ctx) => ratingOf(em, 'Car', c.id),
      verifications: (c: Car, _: unknown, { em }: Ctx) =>
        em.find(Verification, { subjectType: 'Car', subjectId: c.id }, { orderBy: { kind: 'asc' } }),
      owner: (c: Car, _: unknown, { em }: Ctx) => em.findOne(Profile, { userId: c.ownerId }),
    },
    // PII (CONTRACT §5) is not for a client application without users:read, the only caller here.
    Verification: { evidence: () => null },
    Profile: {
      phoneNumber: () => null,
      rating: (p: Profile, _: unknown, { em }: Ctx) => ratingOf(em, 'UserAccount', p.userId),
    },
  },
});

const orm = await openOrm(process.env.DATABASE_URL!, entities as never, {
  pool: Number(process.env.POOL ?? 10),
});
/** The bench's car share: the peer names it in every query (the entities' filter), as a multi-tenant app would. */
const fork = (): EntityManager => {
  const em = orm.em.fork() as EntityManager;
  em.setFilterParams(CAR_SHARE_FILTER, { id: process.env.CAR_SHARE_ID });
  return em;
};
const apollo = new ApolloServer<Ctx>({ schema });
await apollo.start();
const docs = carDocuments(sdlSchema());

const pascal = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(pascal);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== null)
      .map(([k, x]) => [k.charAt(0).toUpperCase() + k.slice(1), pascal(x)]),
  );
};

const app = new Koa();
// Every request: the bearer token looked up where oidc-provider stores it (no cache).
app.use(async (ctx, next) => {
  const token = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1];
  const hash = token && createHash('sha256').update(token).digest('base64url');
  const rows = hash
    ? await orm.em
        .fork()
        .getConnection()
        .execute(
          `select 1 from oauth_model where model in ('AccessToken', 'ClientCredentials') and id = ?
             and (expires_at is null or expires_at > now())`,
          [hash],
        )
    : [];
  if (rows.length === 0) {
    ctx.status = 401;
    ctx.body = { ResponseStatus: { ErrorCode: 'Unauthorized' } };
    return;
  }
  await next();
});

const run = async (query: string, variables: Record<string, unknown>) => {
  const r = await apollo.executeOperation({ query, variables }, { contextValue: { em: fork() } });
  if (r.body.kind !== 'single' || r.body.singleResult.errors) throw new Error(JSON.stringify(r.body));
  return r.body.singleResult.data as Record<string, Record<string, unknown>>;
};
const answer = (ctx: Koa.Context, payload: unknown) => {
  const body = JSON.stringify(payload);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  ctx.set({ ETag: etag, 'Cache-Control': 'private, max-age=10', Vary: 'Accept, Authorization' });
  if (ctx.get('if-none-match') === etag) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = body;
};

const router = new Router();
router.get('/api/cars', async (ctx) => {
  const limit = Number(ctx.query.limit ?? 100);
  const offset = Number(ctx.query.offset ?? 0);
  const page = (await run(docs.search, { limit, offset })).cars!;
  answer(ctx, {
    Cars: pascal(page.nodes),
    Metadata: {
      Total: page.total,
      Limit: page.limit,
      Offset: page.offset,
      Sort: { By: 'CreatedDateUtc', Direction: 'Descending' },
      Filter: { Fields: [] },
      Distinct: null,
    },
  });
});
router.get('/api/cars/:id', async (ctx) => {
  answer(ctx, { Car: pascal((await run(docs.one, { id: ctx.params.id })).car) });
});
router.all(
  '/graphql',
  bodyParser(),
  koaMiddleware(apollo, { context: async () => ({ em: fork() }) }) as never,
);
app.use(router.routes());

const server = createServer(
  { key: readFileSync(process.env.TLS_KEY!), cert: readFileSync(process.env.TLS_CERT!) },
  app.callback(),
);
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as { port: number }).port });
});
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void orm.close(true).finally(() => process.exit(0));
});
