// GraphQL as this service serves it: documents compiled once (graphql-jit), the limits of CONTRACT §13 and the
// execution gate, the Apollo server, the /graphql route, and the same execution for clients in this process.
import { randomUUID } from 'node:crypto';
import type { ApolloServer } from '@apollo/server';
import { koaMiddleware } from '@as-integrations/koa';
import Router from '@koa/router';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type Koa from 'koa';
import type { Actor } from '../access/actor.js';
import type { Authenticator } from '../access/authenticate.js';
import { asHttpError } from '../access/challenge.js';
import type { CarShare } from '../carshares/car-share.js';
import type { Orm } from '../db/orm.js';
import { carShareEm } from '../db/scope.js';
import { actorOf, type RequestCaller } from '../http/caller.js';
import { clientGone } from '../http/request-signal.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { actionLimitsPlugin, type CountActions } from './action-limits.js';
import { startApollo } from './apollo.js';
import { graphqlBody } from './body.js';
import { type Context, createContext } from './context.js';
import { createExecution } from './execution.js';
import { createExecutionGate, type GateOptions, gateSizes } from './execution-gate.js';
import { inProcessExecutor } from './in-process.js';
import { graphqlLimits } from './limits.guard.js';
import type { GraphQLLimits } from './limits.js';
import { spliceHeldText } from './response-pieces.js';
import { type SocketExecution, socketExecution } from './socket-execution.js';

export interface GraphQLDeps {
  schema: GraphQLSchema;
  orm: Orm;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  authenticator: Authenticator;
  maxDepth?: number | undefined;
  maxCost?: number | undefined;
  /** Told the root fields of every mutation once it has run, whichever client ran it, and its car share. */
  afterMutation(fields: string[], carShareId: string): Promise<void>;
  /** The rate limits' count of a document's mutation fields (CONTRACT §28); /graphql counts none when absent. */
  countActions?: CountActions | undefined;
  /** Sizes of the execution gate other than the service's own (tests: tiny lanes, a short wait). */
  gate?: Partial<GateOptions> | undefined;
}

export type InProcessResult = Awaited<ReturnType<ReturnType<typeof inProcessExecutor>>>;

export interface GraphQLEndpoint {
  apollo: ApolloServer<Context>;
  limits: GraphQLLimits;
  /** `/graphql`, as the caller the edge identified. */
  router: Router;
  /** Runs a document as the caller the edge resolved (the REST facade). */
  execute(
    document: string | DocumentNode,
    variables: Record<string, unknown>,
    caller: RequestCaller,
    requestId: string,
    /** Aborts when the client hangs up (`clientGone`): a read still queued then never runs. */
    signal?: AbortSignal,
  ): Promise<InProcessResult>;
  /** Runs a document as the bearer of a token of its own (the dashboard's operator session). */
  executeWithToken(
    document: string,
    variables: Record<string, unknown>,
    authorization: string,
    requestId: string,
    carShare: CarShare,
  ): Promise<InProcessResult>;
  /** A context for a raw Authorization header, checked afresh (graphql-ws), in the car share addressed. */
  contextFor(authorization: string | undefined, carShare: CarShare, requestId?: string): Promise<Context>;
  /** graphql-ws's queries and mutations, run and answered as /graphql's are. */
  socket: SocketExecution;
  stop(): Promise<void>;
}

export async function createGraphQL(deps: GraphQLDeps): Promise<GraphQLEndpoint> {
  const { schema, orm, clock, log, authenticator } = deps;
  const contextOf = (actor: Actor, requestId: string, carShare: CarShare): Context =>
    createContext({
      em: carShareEm(orm, carShare.id),
      carShare,
      actor,
      clock,
      requestId,
      log: log.child({ requestId, carShareId: carShare.id }),
    });

  const limits: GraphQLLimits = { maxDepth: deps.maxDepth ?? 12, maxCost: deps.maxCost ?? 50_000 };
  // Single objects and short pages run at once; pages and larger executions queue for budgets of their own
  // (docs/decisions.md: the limits and why).
  // Refusals (CONTRACT §28 "Overload") by reason, and what waits now.
  const shed = deps.metrics.counter(
    'graphql_gate_shed_total',
    'Executions refused by the execution gate (answered 503) or dropped because their client hung up, by reason',
    ['reason'],
  );
  const gate = createExecutionGate({ ...gateSizes(limits.maxCost), ...deps.gate }, (reason) =>
    shed.inc({ reason }),
  );
  deps.metrics.gauge(
    'graphql_gate_waiting',
    'Executions waiting at the execution gate for their turn',
    () => gate.waiting,
  );
  // Every execution, whichever client asked, runs in the execution service: /graphql through Apollo's gateway hook
  // and limits plugin, graphql-ws, and the in-process clients.
  const execution = createExecution({ schema, gate, metrics: deps.metrics });
  const apollo = await startApollo({
    schema,
    execution,
    limits,
    gate,
    metrics: deps.metrics,
    afterMutation: deps.afterMutation,
    plugins: deps.countActions ? [actionLimitsPlugin(deps.countActions)] : [],
  });
  const execute = inProcessExecutor({ schema, execution, apollo, contextFor: contextOf });

  const router = new Router();
  const graphql = koaMiddleware(apollo, {
    // A bad token is an HTTP 401 with its RFC 6750 challenge, not a 500.
    context: async ({ ctx }) => {
      try {
        const context = contextOf(
          actorOf(ctx),
          (ctx.state.requestId as string | undefined) ?? randomUUID(),
          ctx.state.carShare as CarShare,
        );
        context.clientIp = ctx.ip;
        context.signal = clientGone(ctx.res);
        return context;
      } catch (e) {
        throw asHttpError(e);
      }
    },
  });
  router.all(
    '/graphql',
    graphqlBody,
    graphqlLimits(schema, limits),
    spliceHeldText,
    graphql as unknown as Koa.Middleware,
  );

  return {
    apollo,
    limits,
    router,
    execute: (document, variables, caller, requestId, signal) =>
      execute(document, variables, caller.actor, caller.carShare, requestId, signal),
    async executeWithToken(document, variables, authorization, requestId, carShare) {
      return execute(
        document,
        variables,
        await authenticator.actorFor(authorization, carShare),
        carShare,
        requestId,
      );
    },
    async contextFor(authorization, carShare, requestId = randomUUID()) {
      return contextOf(await authenticator.actorFor(authorization, carShare), requestId, carShare);
    },
    socket: socketExecution({ execution, log }),
    stop: () => apollo.stop(),
  };
}
