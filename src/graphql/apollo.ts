// The Apollo server behind /graphql and the in-process GraphQL clients: compiled execution, the limits of
// CONTRACT §13, error masking, metrics, and the announcement of mutations to the REST facade's cache.
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import { bearerChallengePlugin } from '../access/challenge.js';
import type { Metrics } from '../metrics/metrics.js';
import { compiledGateway } from './compiled.gateway.js';
import type { Context } from './context.js';
import { documentStore } from './document-store.js';
import { formatError, unexpectedErrorsPlugin } from './errors.js';
import type { Execution } from './execution.js';
import type { ExecutionGate } from './execution-gate.js';
import { type GraphQLLimits, limitsPlugin } from './limits.js';
import { mutationRootFields } from './mutation-fields.js';

export interface ApolloDeps {
  schema: GraphQLSchema;
  execution: Execution;
  limits: GraphQLLimits;
  gate: ExecutionGate;
  metrics: Metrics;
  /** Told the root fields of every mutation once it has run, and the car share it ran in. */
  afterMutation(fields: string[], carShareId: string): Promise<void>;
  /** Run after the limits have accepted an operation, before it executes (the rate limits of its fields). */
  plugins?: ApolloServerPlugin<Context>[];
}

export async function startApollo(deps: ApolloDeps): Promise<ApolloServer<Context>> {
  const apollo = new ApolloServer<Context>({
    gateway: compiledGateway(deps.schema, deps.execution),
    documentStore: documentStore(),
    formatError,
    includeStacktraceInErrorResponses: false,
    // The service's own shutdown drains listeners, then stops Apollo, then the database, in that order.
    stopOnTerminationSignals: false,
    introspection: true,
    plugins: [
      // No @cacheControl hints are used (the REST facade caches on its own), and the default plugin costs a hook
      // on every resolved field: about 5 % of the CPU of a 100-car page (test/bench, S1).
      ApolloServerPluginCacheControlDisabled(),
      limitsPlugin(deps.limits, deps.gate, deps.execution, formatError),
      ...(deps.plugins ?? []),
      deps.metrics.graphqlPlugin,
      bearerChallengePlugin<Context>(),
      // A mutation through GraphQL (the dashboard, internal apps) makes the REST facade's cached GETs stale too.
      {
        async requestDidStart() {
          return {
            async willSendResponse(rc) {
              if (rc.operation?.operation !== 'mutation' || !rc.document) return;
              // Through fragments too: `mutation { ...W } fragment W on Mutation { updateCar(…) }` changes a car.
              await deps.afterMutation(
                mutationRootFields(rc.document, rc.operationName),
                rc.contextValue.carShare.id,
              );
            },
          };
        },
      },
      unexpectedErrorsPlugin,
    ],
  });
  await apollo.start();
  return apollo;
}
