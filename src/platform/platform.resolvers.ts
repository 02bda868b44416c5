// GraphQL for the platform (CONTRACT §22): car shares and the platform's audit trail, in the default car share's
// schema. Every field first passes `requirePlatform` (404 on other hosts, then 401/403), then one delegation.
import type { IResolvers } from '@graphql-tools/utils';
import DataLoader from 'dataloader';
import { deleteCarShare } from '../carshares/car-share.deletion.js';
import { reactivateCarShare, suspendCarShare } from '../carshares/car-share.lifecycle.js';
import type { Orm } from '../db/orm.js';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
import { Check } from '../shared/validation.js';
import {
  addOperatorForPlatform,
  type CreateCarShareArgs,
  createCarShareForPlatform,
  type OperatorInput,
  type UpdateCarShareArgs,
  updateCarShareForPlatform,
} from './car-shares.commands.js';
import {
  type CarShareFilter,
  type CarShareUsage,
  countUsage,
  findCarShare,
  searchCarShares,
} from './car-shares.queries.js';
import { requirePlatform } from './platform.access.js';
import {
  auditPlatformAction,
  type PlatformAuditFilter,
  recordPlatformAudit,
  searchPlatformAudit,
} from './platform.audit.js';
import { startPurge } from './purge.js';

export interface PlatformSettings {
  /** The database the car shares live in; the platform reads and changes them as the DATABASE_URL user. */
  orm: Orm;
}

const usageLoader = (orm: Orm, ctx: Context): DataLoader<string, CarShareUsage> => {
  let l = ctx.loaders.get('platform.usage') as DataLoader<string, CarShareUsage> | undefined;
  if (!l) {
    l = new DataLoader((ids) => countUsage(orm, ids, ctx.clock.now()));
    ctx.loaders.set('platform.usage', l);
  }
  return l;
};

/** Suspension and reactivation run their own transactions (src/carshares); the platform's entry follows each. */
const lifecycle = async <T>(orm: Orm, ctx: Context, id: string, action: string, change: () => Promise<T>) => {
  const done = await change();
  await auditPlatformAction(orm, ctx, { action, subjectType: 'CarShare', subjectId: id, carShareId: id });
  return done;
};

export function createPlatformModule(settings: PlatformSettings | undefined): DomainModule {
  const orm = (): Orm => {
    if (!settings) throw new Error('the platform module was composed without its database');
    return settings.orm;
  };
  const guard =
    <A, R>(run: (args: A, ctx: Context) => Promise<R>) =>
    (_: unknown, args: A, ctx: Context): Promise<R> => {
      requirePlatform(ctx);
      return run(args, ctx);
    };
  const byPlatform = { actorType: 'Platform' } as const;
  const usage = (c: { id: string }, _: unknown, ctx: Context) => usageLoader(orm(), ctx).load(c.id);
  const resolvers: IResolvers<unknown, Context> = {
    Query: {
      carShares: guard((args: CarShareFilter) => searchCarShares(orm(), args)),
      carShare: guard((args: { id: string }) => findCarShare(orm(), args.id)),
      platformAudit: guard((args: PlatformAuditFilter) => searchPlatformAudit(orm(), args)),
    },
    Mutation: {
      createCarShare: guard(async (args: { input: CreateCarShareArgs }, ctx) => {
        const made = await createCarShareForPlatform(orm(), ctx, args.input);
        return { ...(await findCarShare(orm(), made.id)), initialOperator: made.initialOperator };
      }),
      updateCarShare: guard(async (args: { id: string; input: UpdateCarShareArgs }, ctx) => {
        await updateCarShareForPlatform(orm(), ctx, args.id, args.input);
        return findCarShare(orm(), args.id);
      }),
      suspendCarShare: guard(async (args: { id: string; input?: { reason?: string | null } | null }, ctx) => {
        const reason = args.input?.reason?.trim() || null;
        new Check().length('input.reason', reason, 0, 1000).throwIfAny();
        await lifecycle(orm(), ctx, args.id, 'suspendCarShare', () =>
          suspendCarShare(orm(), args.id, reason, byPlatform, ctx.clock.now()),
        );
        return findCarShare(orm(), args.id);
      }),
      reactivateCarShare: guard(async (args: { id: string }, ctx) => {
        await lifecycle(orm(), ctx, args.id, 'reactivateCarShare', () =>
          reactivateCarShare(orm(), args.id, byPlatform, ctx.clock.now()),
        );
        return findCarShare(orm(), args.id);
      }),
      deleteCarShare: guard(async (args: { id: string }, ctx) => {
        const id = args.id.toLowerCase();
        // The platform's entry commits with the deletion.
        await deleteCarShare(orm(), id, byPlatform, ctx.clock.now(), (em) =>
          recordPlatformAudit(em, ctx, {
            action: 'deleteCarShare',
            subjectType: 'CarShare',
            subjectId: id,
            carShareId: id,
          }),
        );
        // Its rows go in the background, here at once and on every instance's sweep.
        startPurge(orm(), ctx.log);
        return { id };
      }),
      addCarShareOperator: guard((args: { id: string; input: OperatorInput }, ctx) =>
        addOperatorForPlatform(orm(), ctx, args.id, args.input),
      ),
    },
    CarShare: { usage },
    CreatedCarShare: { usage },
  };
  // The entries are written by the commands above, in two trails (the platform's and the car share's), not by
  // the schema assembly's single trail.
  const own = { notAdministrative: 'audited by src/platform in the platform trail and the car share trail' };
  return {
    name: 'platform',
    entities: [],
    resolvers,
    audit: {
      createCarShare: own,
      updateCarShare: own,
      suspendCarShare: own,
      reactivateCarShare: own,
      deleteCarShare: own,
      addCarShareOperator: own,
    },
  };
}
